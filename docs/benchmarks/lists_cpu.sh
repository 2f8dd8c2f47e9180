#!/bin/bash
# The CPU time of the four lists' timed phase, less sensitive to a busy machine than
# year_bench's wall-clock medians. Usage: lists_cpu.sh path/to/year_bench [another ...]
# Runs each `year_bench 10 1000 300 --only="API list"` in turn (give old and new twice, taking
# turns), and from the line "servers:" (the fixture made) to its end counts the whole
# process's CPU time with `perf stat -e task-clock`: the servers, the client and the plain
# SQLite baselines, the last two the same work in every build. `ONLY="report, 30"
# lists_cpu.sh ...` times other requests the same way (their day 1 and day 365 medians).
ONLY=${ONLY:-API list}
for BIN in "$@"; do
  OUT=$(mktemp)
  "$BIN" 10 1000 300 --only="$ONLY" > "$OUT" 2>&1 &
  PID=$!
  until grep -q "^servers:" "$OUT"; do sleep 1; done
  perf stat -e task-clock -p $PID -o "$OUT.perf" 2>/dev/null &
  STAT=$!
  wait $PID
  kill -INT $STAT
  wait $STAT
  echo "== $BIN"
  grep -E "plain SQLite, day 365|day 365 / day 1" "$OUT" | sed "s/  */ /g"
  grep -E "task-clock" "$OUT.perf"
  rm -f "$OUT" "$OUT.perf"
done
