#!/bin/bash
# Server CPU per query at fixed query rates: sysbench oltp_point_select (prepared) with
# --rate, so that two thread counts can be compared at the same rate. On a machine where
# the client shares the server's cores, the rate a run reaches sets how many queries each
# wake-up of a worker serves, and with it the CPU per query (docs/performance.md,
# 2026-11-27); the harness's unlimited runs cannot separate the two.
#
# usage: bench/fixed_rate.sh BIN "RATE THREADS" ["RATE THREADS" ...]
#        e.g. bench/fixed_rate.sh target/release/manycore "5000 8" "5000 512" "20000 8" "20000 512"
# env:   FR_DIR (scratch, default /var/tmp/manycore-fixed-rate), FR_PORT (default 3511),
#        FR_ARGS (server arguments, default "--sync none")
# Prints, per pair: the rate sysbench reached, the server's CPU (cores and µs per query,
# then the user and system parts of those µs) over 5 s after a 3 s warm-up, and its
# busiest threads.
set -euo pipefail
BIN=$1; shift
DIR=${FR_DIR:-/var/tmp/manycore-fixed-rate}; PORT=${FR_PORT:-3511}; ARGS=${FR_ARGS---sync none}
SB=(sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root
    --tables=4 --table-size=10000)
HZ=$(getconf CLK_TCK)
rm -rf "$DIR"; mkdir -p "$DIR"
PID=
trap '[ -n "$PID" ] && kill "$PID" 2> /dev/null && wait "$PID" 2> /dev/null; true' EXIT
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$DIR/data" $ARGS > "$DIR/server.log" 2>&1 &
PID=$!
for _ in $(seq 60); do
  mariadb --skip-ssl -h127.0.0.1 -P"$PORT" -uroot -e "CREATE DATABASE IF NOT EXISTS sbtest" \
    2> /dev/null && break
  sleep 0.5
done
if "${SB[@]}" --threads=4 prepare 2>&1 | grep FATAL; then exit 1; fi
ticks() { awk '{print $14 + $15}' "$1"; }
user_ticks() { awk '{print $14}' "$1"; }
for pair in "$@"; do
  read -r rate threads <<< "$pair"
  "${SB[@]}" --threads="$threads" --rate="$rate" --time=9 --db-ps-mode=auto run > "$DIR/run.out" 2>&1 &
  client=$!
  sleep 3
  before=$(ticks "/proc/$PID/stat"); user_before=$(user_ticks "/proc/$PID/stat")
  declare -A thread_before=()
  for t in /proc/"$PID"/task/*; do thread_before[$t]=$(ticks "$t/stat"); done
  sleep 5
  after=$(ticks "/proc/$PID/stat"); user_after=$(user_ticks "/proc/$PID/stat")
  busiest=$(for t in /proc/"$PID"/task/*; do
      echo "$(( $(ticks "$t/stat") - ${thread_before[$t]:-0} )) $(cat "$t/comm")"
    done | sort -rn | head -3 | awk '{printf "%s %d, ", $2, $1}')
  wait "$client"
  reached=$(awk '/queries:/ {gsub(/[()]/, "", $3); print $3; exit}' "$DIR/run.out")
  awk -v r="$rate" -v t="$threads" -v q="$reached" -v d="$((after - before))" -v u="$((user_after - user_before))" -v hz="$HZ" -v b="$busiest" \
    'BEGIN { us = 1e6 / hz / 5 / q
             printf "rate %6d threads %4d: reached %8.0f q/s, server %.2f cores, %5.1f us/q = %4.1f user + %4.1f sys (ticks: %s)\n",
             r, t, q, d / hz / 5, d * us, u * us, (d - u) * us, b }'
done
