#!/usr/bin/env python3
"""Sums meson test logs (testlog*.json, a result a line) into the line
'N passed, N failed, N skipped'. Logs that do not exist are left out."""
import json, os, sys

counts = {"passed": 0, "failed": 0, "skipped": 0}
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    with open(path) as f:
        for line in f:
            result = json.loads(line)["result"]
            key = {"OK": "passed", "SKIP": "skipped", "EXPECTEDFAIL": "passed"}.get(result, "failed")
            counts[key] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
