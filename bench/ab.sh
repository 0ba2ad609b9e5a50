#!/bin/bash
# A/B of two manycore binaries on a sysbench test (AB_TEST, default oltp_point_select):
# alternating rounds, each on a fresh copy of one data directory, printing QPS and the
# server's and sysbench's CPU per query (from /proc; a transaction's statements count).
# On a noisy machine compare medians over rounds, not single lines.
#
# usage: bench/ab.sh BIN_A BIN_B [threads=8] [ps-mode=auto|disable] [rounds=3] [seconds=6]
# env:   AB_DIR (scratch, default /var/tmp/manycore-ab), AB_PORT (default 3497),
#        AB_ARGS (extra server arguments for both, default "--sync none"),
#        AB_TEST (the sysbench test, e.g. oltp_read_only)
set -euo pipefail
A=$1; B=$2; THREADS=${3:-8}; MODE=${4:-auto}; ROUNDS=${5:-3}; SECONDS_RUN=${6:-6}
DIR=${AB_DIR:-/var/tmp/manycore-ab}; PORT=${AB_PORT:-3497}; ARGS=${AB_ARGS---sync none}
TICK=$(getconf CLK_TCK)
SB=(sysbench "${AB_TEST:-oltp_point_select}" --mysql-host=127.0.0.1 --mysql-port="$PORT"
    --mysql-user=root
    --tables=4 --table-size=100000)
mkdir -p "$DIR"

start() {  # start BIN on DATA; sets PID once it answers
  "$1" serve --listen "127.0.0.1:$PORT" --data-dir "$2" $ARGS > "$DIR/server.log" 2>&1 &
  PID=$!
  for _ in $(seq 120); do
    mariadb --skip-ssl -h127.0.0.1 -P"$PORT" -uroot -e "SELECT 1" > /dev/null 2>&1 && return
    kill -0 "$PID" 2> /dev/null || { cat "$DIR/server.log"; exit 1; }
    sleep 0.5
  done
  echo "server did not answer"; kill "$PID"; exit 1
}
stop() { kill "$PID"; wait "$PID" 2> /dev/null || true; }
# A server left running after an error would share the port with the next run's
# (SO_REUSEPORT; the server now refuses that, older builds did not).
trap 'kill "${PID:-}" 2> /dev/null || true' EXIT
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

if [ ! -d "$DIR/data" ]; then
  echo "loading 4 x 100k rows into $DIR/data"
  start "$A" "$DIR/data"
  mariadb --skip-ssl -h127.0.0.1 -P"$PORT" -uroot -e "CREATE DATABASE IF NOT EXISTS sbtest"
  # sysbench 1.0 exits 0 even when preparing fails: look for its FATAL lines.
  if "${SB[@]}" --threads=4 prepare 2>&1 | grep FATAL; then exit 1; fi
  stop
fi
for _ in $(seq "$ROUNDS"); do
  for bin in "$A" "$B"; do
    rm -rf "$DIR/copy"; cp -a "$DIR/data" "$DIR/copy"
    start "$bin" "$DIR/copy"
    # A wide margin: at 512 threads on 2 cores this shell's sleeps overrun by seconds.
    "${SB[@]}" --threads="$THREADS" --time=$((SECONDS_RUN + 8)) --db-ps-mode="$MODE" run \
      > "$DIR/sysbench.out" 2>&1 &
    CLIENT=$!
    sleep 2
    s0=$(cpu "$PID"); c0=$(cpu "$CLIENT")
    sleep "$SECONDS_RUN"
    s1=$(cpu "$PID"); c1=$(cpu "$CLIENT")
    wait "$CLIENT"; stop
    qps=$(sed -n 's/.*queries: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$DIR/sysbench.out")
    python3 -c "q=$qps; w=q*$SECONDS_RUN
print(f'$bin threads=$THREADS $MODE qps={q:.0f} server_us/q={($s1-$s0)/$TICK*1e6/w:.1f}'
      f' client_us/q={($c1-$c0)/$TICK*1e6/w:.1f}')"
  done
done
