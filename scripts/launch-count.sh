#!/bin/sh
# Counts the launches of the hap binary that a test run recorded (HAP_TEST_LAUNCH_LOG: each start
# of the binary appends one line, the test's name and the arguments; docs/testing.md) and fails
# when there are more than LIMIT, listing them by test. A log that is missing is a failure too:
# the suite launches the binary on purpose (its end-to-end tests), so no log means the count
# was not taken, not that it is zero.
# usage: sh scripts/launch-count.sh LOG [LIMIT]
log=$1
limit=${2:-100}
if [ ! -f "$log" ]; then
  echo "error: $log is missing: no launch of hap was recorded, so the launches were not counted" >&2
  echo "(is HAP_TEST_LAUNCH_LOG passed on to the binary, and does main.swift call LaunchLog.record?)" >&2
  exit 1
fi
count=$(wc -l < "$log" | tr -d ' ')
echo "hap was launched $count times by the tests (at most $limit; each in $log)"
if [ "$count" -gt "$limit" ]; then
  echo "error: the tests launched hap $count times, more than $limit; launches by test:" >&2
  cut -f1 "$log" | sort | uniq -c | sort -rn >&2
  echo "each launch (test, arguments):" >&2
  cat "$log" >&2
  exit 1
fi
