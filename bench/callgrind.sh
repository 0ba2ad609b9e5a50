#!/bin/bash
# The server's user-space instructions per sysbench event, counted by callgrind: a
# deterministic cost measure where CPU time is noisy. Instrumentation is on only for
# EVENTS events after a warm-up, so startup and loading are not counted.
#
# usage: bench/callgrind.sh BIN [test=oltp_point_select] [ps-mode=auto] [threads=8] [events=20000]
#        test=connect: each event is one connection of the mariadb CLI (no TLS) running
#        SELECT 1 (login, session set-up and teardown); ps-mode and threads are ignored.
# Each sysbench run opens its own connections, so at high thread counts the counted run
# includes their set-up (measure that alone with test=connect).
# env:   CG_DIR (scratch, default /var/tmp/manycore-cg), CG_PORT (default 3498),
#        CG_ARGS (extra server arguments, default "--sync none"; CG_ARGS= for durable),
#        CG_VALGRIND (extra valgrind arguments, e.g. "--cache-sim=yes --D1=49152,12,64
#        --LL=2097152,16,64" to count data-cache misses per event against this machine's
#        L1d and per-core L2), CG_RATE (hold the counted run to this many events per
#        second: at a low rate each event wakes an idle worker, so the count includes what
#        a wake-up costs)
# Leaves the profile in $CG_DIR/callgrind.out for callgrind_annotate.
set -euo pipefail
BIN=$1; TEST=${2:-oltp_point_select}; MODE=${3:-auto}; THREADS=${4:-8}; EVENTS=${5:-20000}
DIR=${CG_DIR:-/var/tmp/manycore-cg}; PORT=${CG_PORT:-3498}; ARGS=${CG_ARGS---sync none}
SB=(sysbench "$TEST" --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root
    --tables=4 --table-size=100000 --threads="$THREADS" --time=0 --db-ps-mode="$MODE")
rm -rf "$DIR"; mkdir -p "$DIR"
answers() {
  for _ in $(seq 240); do
    mariadb --skip-ssl -h127.0.0.1 -P"$PORT" -uroot -e "SELECT 1" > /dev/null 2>&1 && return
    sleep 0.5
  done
  echo "server did not answer"; exit 1
}
# Whatever ends the script stops its server and waits for it: a server left running, or
# still exiting, would hold the port when the next run starts.
PID=
trap '[ -n "$PID" ] && kill "$PID" 2> /dev/null && wait "$PID" 2> /dev/null; true' EXIT
# Load natively (under valgrind it would take minutes), then restart under callgrind.
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$DIR/data" $ARGS > "$DIR/load.log" 2>&1 &
PID=$!
answers
mariadb --skip-ssl -h127.0.0.1 -P"$PORT" -uroot -e "CREATE DATABASE IF NOT EXISTS sbtest"
# sysbench 1.0 exits 0 even when preparing fails: look for its FATAL lines.
if "${SB[@]}" --threads=4 prepare 2>&1 | grep FATAL; then exit 1; fi
kill "$PID"; wait "$PID" 2> /dev/null || true
valgrind --tool=callgrind --instr-atstart=no ${CG_VALGRIND:-} --callgrind-out-file="$DIR/dump" \
  "$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$DIR/data" $ARGS > "$DIR/server.log" 2>&1 &
PID=$!
answers
connections() {
  for _ in $(seq "$1"); do
    mariadb --skip-ssl -h127.0.0.1 -P"$PORT" -uroot -e "SELECT 1" > /dev/null
  done
}
if [ "$TEST" = connect ]; then
  connections 100
  callgrind_control -i on "$PID" > /dev/null
  connections "$EVENTS"
else
  "${SB[@]}" --events=4000 run > /dev/null
  callgrind_control -i on "$PID" > /dev/null
  "${SB[@]}" --events="$EVENTS" --rate="${CG_RATE:-0}" run > /dev/null
fi
callgrind_control -i off "$PID" > /dev/null
callgrind_control -d "$PID" > /dev/null
sleep 1
profile=$(ls -S "$DIR"/dump.* | head -1)
mv "$profile" "$DIR/callgrind.out"
totals=$(callgrind_annotate "$DIR/callgrind.out" 2> /dev/null |
  awk '/PROGRAM TOTALS/ {gsub(",", ""); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) print $i}')
events=$(callgrind_annotate "$DIR/callgrind.out" 2> /dev/null | awk '/^Events shown:/ {$1 = $2 = ""; print}')
echo "$TEST $MODE threads=$THREADS, per event ($DIR/callgrind.out):"
paste <(echo $events | tr ' ' '\n') <(echo $totals | tr ' ' '\n') |
  awk -v n="$EVENTS" '{printf "  %-5s %10.1f\n", $1, $2 / n}'
