#!/usr/bin/env bash
# Every test suite of the repository, in the order a failure is cheapest to read:
# dependencies, release build of the server, unit + integration tests (which start
# throwaway manycore and MariaDB servers on 127.0.0.1), the cross-architecture
# script if present, and the sqllogictest report (informational, never a gate).
#
# Runs every step even after a failure, then exits non-zero if any step failed.
# Env: MANYCORE_TEST_TARGET (manycore|mariadb, default manycore),
#      SLT_DIR (default ../shared/slt), SLT_MAX_FILES (the N smallest files),
#      SLT_TIMEOUT (seconds, default 900), SKIP_SLT=1 to leave the report out.
set -uo pipefail
cd "$(dirname "$0")/.."

failed_steps=()
passed_count=0
section() { printf '\n==== %s ====\n' "$*"; }
step() {
    local name=$1
    shift
    section "$name"
    local start=$SECONDS
    if "$@"; then
        passed_count=$((passed_count + 1))
        printf -- '---- %s: ok (%ds)\n' "$name" $((SECONDS - start))
    else
        failed_steps+=("$name")
        printf -- '---- %s: FAILED (%ds)\n' "$name" $((SECONDS - start))
    fi
}

install_dependencies() {
    local missing=()
    command -v mariadb >/dev/null || missing+=(mariadb-client)
    command -v mariadb-admin >/dev/null || missing+=(mariadb-client)
    { command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; } || missing+=(mariadb-server)
    command -v mariadb-install-db >/dev/null || missing+=(mariadb-server)
    command -v sysbench >/dev/null || missing+=(sysbench)
    # PyMySQL (and cryptography, for its RSA path) under Debian's python3: tests/tls.rs.
    /usr/bin/python3 -c 'import pymysql, cryptography' 2>/dev/null ||
        missing+=(python3-pymysql python3-cryptography)
    # mysqlclient, SQLAlchemy and Django beside PyMySQL: tests/drivers.rs.
    /usr/bin/python3 -c 'import MySQLdb, sqlalchemy, django' 2>/dev/null ||
        missing+=(python3-mysqldb python3-sqlalchemy python3-django)
    # The Go, Node.js and Java driver programs: tests/drivers.rs (their own dependencies
    # come from the Go proxy, npm and Maven Central on the first run).
    command -v go >/dev/null || missing+=(golang-go)
    { command -v node >/dev/null && command -v npm >/dev/null; } || missing+=(nodejs npm)
    { command -v java >/dev/null && command -v javac >/dev/null; } || missing+=(default-jdk-headless)
    command -v mvn >/dev/null || missing+=(maven)
    command -v cargo >/dev/null || { echo "cargo not found: install a Rust toolchain" >&2; return 1; }
    if ((${#missing[@]} == 0)); then
        echo "mariadb, mariadb-admin, mariadbd, sysbench, PyMySQL, mysqlclient, SQLAlchemy, Django, go, node, npm, java, mvn: present"
        return 0
    fi
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "installing: ${missing[*]}"
    # Debian starts services from package scripts; our tests start their own
    # throwaway servers, so keep the packaged one from taking port 3306.
    local policy=/usr/sbin/policy-rc.d created_policy=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
        "${sudo[@]}" chmod +x "$policy"
        created_policy=1
    fi
    local rc=0
    "${sudo[@]}" apt-get update -qq >/dev/null || rc=$?
    if ((rc == 0)); then
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null || rc=$?
    fi
    ((created_policy)) && "${sudo[@]}" rm -f "$policy"
    return $rc
}

build_server() {
    cargo build --release -p manycore-server
}

# In the release profile, so the tests reuse the server build's compiled dependencies
# (one build instead of two on CI's two cores) and the concurrency tests run fast.
workspace_tests() {
    cargo test --release --workspace --no-fail-fast
}

cross_arch() {
    bash scripts/cross-arch-test.sh
}

# sqllogictest is a report, not a gate: it prints pass counts and succeeds unless
# the runner cannot be built. The whole corpus takes about a minute against MariaDB;
# `timeout` bounds it should a server hang (the runner's servers die with it).
slt_report() {
    local dir=${SLT_DIR:-../shared/slt}
    if [ ! -d "$dir" ]; then
        echo "no sqllogictest corpus at $dir (set SLT_DIR); skipped"
        return 0
    fi
    cargo build -q -p manycore-testkit --bin slt || return 1
    local args=(--server "${MANYCORE_TEST_TARGET:-manycore}" --file-timeout 120)
    [ -n "${SLT_MAX_FILES:-}" ] && args+=(--max-files "$SLT_MAX_FILES")
    timeout -k 10 "${SLT_TIMEOUT:-900}" "${CARGO_TARGET_DIR:-target}/debug/slt" "${args[@]}" "$dir" ||
        echo "sqllogictest runner stopped early (exit $?); not counted as a test failure"
    return 0
}

total_start=$SECONDS
step "dependencies" install_dependencies
step "build: cargo build --release -p manycore-server" build_server
step "tests: cargo test --workspace --no-fail-fast" workspace_tests
if [ -e scripts/cross-arch-test.sh ]; then
    step "cross-architecture: scripts/cross-arch-test.sh" cross_arch
fi
if [ "${SKIP_SLT:-0}" != 1 ]; then
    step "sqllogictest report (informational)" slt_report
fi

section "summary ($((SECONDS - total_start))s)"
if ((${#failed_steps[@]})); then
    printf 'failed step: %s\n' "${failed_steps[@]}"
fi
echo "steps: ${passed_count} passed, ${#failed_steps[@]} failed"
((${#failed_steps[@]} == 0))
