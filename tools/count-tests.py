#!/usr/bin/env python3
"""Sums meson test logs (testlog*.json, a result a line) into the line
'N passed, N failed, N skipped (N checks run, N failed)'. The first three
count test programs (CI and the docs read that prefix); the checks are those
the check framework reports inside them ('100%: Checks: 8, Failures: 0,
Errors: 0' in a test's output; errors count as failed). Logs that do not
exist are left out."""
import json, os, re, sys

# check's summary line (srunner_print), one per suite run of a program.
CHECKS = re.compile(r"\b\d+%: Checks: (\d+), Failures: (\d+), Errors: (\d+)")

counts = {"passed": 0, "failed": 0, "skipped": 0}
checks = checks_failed = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    with open(path) as f:
        for line in f:
            test = json.loads(line)
            result = test["result"]
            key = {"OK": "passed", "SKIP": "skipped", "EXPECTEDFAIL": "passed"}.get(result, "failed")
            counts[key] += 1
            # stderr is a key of its own only where meson kept it apart.
            output = (test.get("stdout") or "") + (test.get("stderr") or "")
            for m in CHECKS.finditer(output):
                checks += int(m.group(1))
                checks_failed += int(m.group(2)) + int(m.group(3))
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped "
      f"({checks} checks run, {checks_failed} failed)")
