#!/usr/bin/env bash
# One yesmark measurement against a running server: 8 `yes "DO 0;" | mariadb` streams for
# 6 s after 1 s of warm-up; prints statements/s and the server's CPU per statement (user
# and system).
#
#   bench/yesmark.sh PORT PID [client connection args]
#
# PORT: the server's TCP port on 127.0.0.1, for reading Questions; PID: the server's
# process. The streams connect with the client args (default: -h127.0.0.1 -PPORT), e.g.
# `--socket=PATH` to go through a Unix socket. Alternate servers in a loop to compare
# them (docs/performance.md, "Through a Unix socket"); bench/run.py has yesmark too.
set -euo pipefail
port=$1 pid=$2
shift 2
client=("$@")
[ ${#client[@]} -gt 0 ] || client=(-h127.0.0.1 "-P$port")
questions() {
  mariadb --no-defaults -h127.0.0.1 "-P$port" -uroot --skip-ssl -N \
    -e "SHOW GLOBAL STATUS LIKE 'Questions'" | awk '{print $2}'
}
cpu_ticks() { awk '{print $14, $15}' "/proc/$pid/stat"; } # user, system
streams=()
for _ in $(seq 8); do
  # $! is the CLI; its `yes` dies of SIGPIPE once the CLI is gone.
  yes "DO 0;" | mariadb --no-defaults "${client[@]}" -uroot --skip-ssl > /dev/null 2>&1 &
  streams+=($!)
done
trap 'kill "${streams[@]}" 2>/dev/null; wait' EXIT
sleep 1
q0=$(questions)
read -r u0 s0 < <(cpu_ticks)
sleep 6
q1=$(questions)
read -r u1 s1 < <(cpu_ticks)
statements=$((q1 - q0 - 1)) # minus the first SHOW STATUS
ticks=$(getconf CLK_TCK)
awk -v n="$statements" -v u="$((u1 - u0))" -v s="$((s1 - s0))" -v hz="$ticks" \
  'BEGIN { us = 1e6 / hz / n
           printf "statements/s %d  server us per statement %.2f (user %.2f, system %.2f)\n",
                  n / 6, (u + s) * us, u * us, s * us }'
