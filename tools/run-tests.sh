#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test, and end
# with one line "N passed, N failed, N skipped". Tests that need a GPU skip
# (exit 77) where there is none.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh || exit 1
tools/build.sh || exit 1
meson test -C build --print-errorlogs --num-processes 1
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
with open(sys.argv[1]) as f:
    for line in f:
        result = json.loads(line)["result"]
        key = {"OK": "passed", "SKIP": "skipped", "EXPECTEDFAIL": "passed"}.get(result, "failed")
        counts[key] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
PY
exit $status
