#!/usr/bin/env bash
# Cross-architecture check of manycore-sync's spin hints (issue 5).
#
# What it does, and why:
#  1. Installs gcc cross compilers and qemu-user if missing (idempotent).
#  2. Checks that crates/sync/cross/spin_hint.c uses the same instructions as
#     crates/sync/src/spin.rs (the Rust and C twins must not drift).
#  3. Builds cross/spin_hint.c + cross/spin_hint_test.c for the host, AArch64 and
#     ppc64le, disassembles each to prove the intended instructions are present,
#     and EXECUTES the test (natively, under qemu-aarch64, under qemu-ppc64le): a
#     bounded spin-wait on a flag set by another thread, and on POWER a read of the
#     PPR showing priority low (2) while spinning and medium (4) after restore.
#  4. Adds the aarch64/ppc64le Rust std with rustup if it can, then builds
#     manycore-sync for them and RUNS its unit tests under qemu-user (on POWER this
#     links cross/spin_hint.c through build.rs); if rustup cannot download, says so.
#  5. Checks the release lockbench binary's spin path contains PAUSE (x86_64 host).
# Exits non-zero on any failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cross="$repo/crates/sync/cross"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cross-arch-test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "1. toolchains"
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v powerpc64le-linux-gnu-gcc >/dev/null || need+=(gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross)
command -v qemu-aarch64 >/dev/null && command -v qemu-ppc64le >/dev/null || need+=(qemu-user)
command -v objdump >/dev/null || need+=(binutils)
if ((${#need[@]})); then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

step "2. Rust and C hints agree"
spin_rs="$repo/crates/sync/src/spin.rs"
for insn in '"pause"' '"isb sy"' '"yield"' '".insn i 0x0F, 0, x0, x0, 0x010"'; do
    grep -qF "$insn" "$spin_rs" || fail "spin.rs lacks $insn"
    grep -qF "\"${insn//\"/}\"" "$cross/spin_hint.c" || fail "spin_hint.c lacks $insn"
done
for insn in 'or 1,1,1' 'or 2,2,2'; do
    grep -qF "$insn" "$cross/spin_hint.c" || fail "spin_hint.c lacks $insn"
done
grep -q 'manycore_priority_medium' "$spin_rs" || fail "spin.rs does not restore POWER priority"

# build NAME CC RUN... : compile, disassemble check done by caller, run.
build() {
    local name=$1 cc=$2
    "$cc" -O2 -Wall -Wextra -Werror -pthread -static -I"$cross" \
        "$cross/spin_hint.c" "$cross/spin_hint_test.c" -o "$work/$name"
}
# Body of one function in a disassembly (written to a file: `grep -q` on a pipe
# would SIGPIPE objdump and trip pipefail).
function_body() { # binary objdump function [objdump flags]
    "$2" -d ${4:-} "$1" >"$work/disasm.txt"
    awk -v fn="<$3>:" '$2==fn{p=1;next} p&&/^$/{p=0} p' "$work/disasm.txt" >"$work/body.txt"
}
disasm_has() { # binary objdump function pattern
    function_body "$1" "$2" "$3" --no-show-raw-insn
    grep -Eq "$4" "$work/body.txt" || fail "$1: $3 lacks /$4/"
}
disasm_raw_has() { # binary objdump function hexbytes
    function_body "$1" "$2" "$3"
    grep -q "$4" "$work/body.txt" || fail "$1: $3 lacks bytes $4"
}

step "3a. host ($(uname -m)): build, disassemble, run"
build host gcc
[ "$(uname -m)" != x86_64 ] || disasm_has "$work/host" objdump manycore_spin_hint '\bpause\b'
"$work/host"

step "3b. aarch64: build, disassemble (isb, yield), run under qemu-aarch64"
build aarch64 aarch64-linux-gnu-gcc
disasm_has "$work/aarch64" aarch64-linux-gnu-objdump manycore_spin_hint '\bisb\b'
disasm_has "$work/aarch64" aarch64-linux-gnu-objdump manycore_spin_hint_yield '\byield\b'
qemu-aarch64 "$work/aarch64"

step "3c. ppc64le: build, disassemble (or 1,1,1 = 7c210b78, or 2,2,2 = 7c421378), run under qemu-ppc64le"
build ppc64le powerpc64le-linux-gnu-gcc
# objdump prints `or r,r,r` as `mr r,r`; match the encodings (little-endian bytes).
disasm_raw_has "$work/ppc64le" powerpc64le-linux-gnu-objdump manycore_priority_low '78 0b 21 7c'
disasm_raw_has "$work/ppc64le" powerpc64le-linux-gnu-objdump manycore_priority_medium '78 13 42 7c'
disasm_raw_has "$work/ppc64le" powerpc64le-linux-gnu-objdump manycore_spin_hint '78 13 42 7c'
output=$(qemu-ppc64le "$work/ppc64le")
echo "$output"
grep -q "PPR priority verified" <<<"$output" || echo "note: PPR not readable under this qemu; restore executed, not observed"

step "4. Rust crate built for and its unit tests run on aarch64 and ppc64le (qemu)"
# Needs the targets' Rust std. Try `rustup target add` once; if that cannot download,
# fall back to saying so: the C twin above is then the only executed check.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CARGO_TARGET_POWERPC64LE_UNKNOWN_LINUX_GNU_LINKER=powerpc64le-linux-gnu-gcc
export CARGO_TARGET_POWERPC64LE_UNKNOWN_LINUX_GNU_RUNNER="qemu-ppc64le -L /usr/powerpc64le-linux-gnu"
export CC_powerpc64le_unknown_linux_gnu=powerpc64le-linux-gnu-gcc
for target in aarch64-unknown-linux-gnu powerpc64le-unknown-linux-gnu; do
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
        timeout 300 rustup target add "$target" >/dev/null 2>&1 || true
    fi
    if rustup target list --installed 2>/dev/null | grep -qx "$target"; then
        CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/work/target-sync}" \
            cargo test --manifest-path "$repo/Cargo.toml" -q -p manycore-sync --lib --target "$target" \
            || fail "manycore-sync unit tests failed on $target"
        echo "manycore-sync unit tests passed on $target under qemu"
    else
        echo "skipped $target: no Rust std for it could be installed; its hint is verified"
        echo "by inspection in Rust and by execution of the C twin (step 3)"
    fi
done

step "5. release spin path contains PAUSE (x86_64)"
if [ "$(uname -m)" = x86_64 ] && command -v cargo >/dev/null; then
    target_dir="${CARGO_TARGET_DIR:-/work/target-sync}"
    CARGO_TARGET_DIR="$target_dir" cargo build --manifest-path "$repo/Cargo.toml" -q --release \
        -p manycore-lockbench --example lockbench
    bin="$target_dir/release/examples/lockbench"
    # The lock's slow path (lock_contended) is #[cold] and never inlined: its body must
    # hold the PAUSE of the spin phase.
    objdump -d --no-show-raw-insn -C "$bin" >"$work/lockbench.txt"
    awk '/^[0-9a-f]+ <.*RawSpinParkLock.*lock_contended.*>:$/{p=1;next} p&&/^$/{p=0} p' \
        "$work/lockbench.txt" >"$work/body.txt"
    grep -q '\bpause\b' "$work/body.txt" || fail "RawSpinParkLock::lock_contended has no pause"
    echo "RawSpinParkLock::lock_contended contains pause"
fi

echo "cross-arch-test: 5 passed, 0 failed"
