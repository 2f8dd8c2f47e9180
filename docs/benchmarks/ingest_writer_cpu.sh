#!/bin/bash
# The database writer's CPU time per stored event, less sensitive to a busy machine than
# ingest_bench's wall-clock rates. Usage: ingest_writer_cpu.sh path/to/ingest_bench
# Runs `ingest_bench 5 3 batch`, reads each adcab-writer thread's utime+stime (10 ms ticks)
# from /proc while it runs, and prints CPU per event of the server's writer (the first writer
# thread; events = the three batch rates x 5 s) and per row of the raw baseline's writers.
BIN=$1
OUT=$(mktemp)
$BIN 5 3 batch > "$OUT" 2>&1 &
PID=$!
declare -A seen
while kill -0 $PID 2>/dev/null; do
  for t in /proc/$PID/task/*; do
    if [ "$(cat $t/comm 2>/dev/null)" = "adcab-writer" ]; then
      read -r -a f < <(sed 's/.*) //' $t/stat 2>/dev/null)
      [ -n "${f[11]}" ] && seen[${t##*/}]=$(( ${f[11]} + ${f[12]} ))
    fi
  done
  sleep 0.05
done
wait $PID
low=$(printf "%s\n" "${!seen[@]}" | sort -n | head -1)
rawticks=0; for t in "${!seen[@]}"; do [ "$t" != "$low" ] && rawticks=$((rawticks + ${seen[$t]})); done
rates=$(grep "batch run" "$OUT" | sed 's/.*: \([0-9]*\) events.*/\1/' | paste -sd+ | bc)
grep -E "batch postbacks" "$OUT"
echo "writer CPU: $(echo "scale=2; ${seen[$low]}*10000/($rates*5)" | bc) us/event (batch); raw $(echo "scale=2; $rawticks*10000/600000" | bc) us/row"
