/*
 * Per-architecture spin hints: the C twin of crates/sync/src/spin.rs.
 *
 * Why this file exists:
 *  - Stable Rust has no inline asm for PowerPC, so on powerpc64 the Rust crate
 *    links THIS file (crates/sync/build.rs compiles it) and calls these functions.
 *  - The x86_64 toolchain here cannot build Rust for AArch64 or POWER, so
 *    scripts/cross-arch-test.sh cross-compiles this file with gcc and EXECUTES it
 *    under qemu-user together with cross/spin_hint_test.c.
 *
 * Invariants (kept identical to spin.rs, checked by scripts/cross-arch-test.sh):
 *  (1) x86: PAUSE.  AArch64: ISB SY (YIELD available for comparison).
 *      POWER: "or 1,1,1" lowers SMT priority, "or 2,2,2" restores medium.
 *      RISC-V: PAUSE (encoded as a FENCE hint).  Elsewhere: compiler barrier.
 *  (2) A hint never performs an atomic read-modify-write and never writes memory:
 *      every asm statement only has a "memory" clobber so the compiler cannot
 *      delete or hoist the surrounding loop.
 *  (3) manycore_spin_hint() is self-contained: on POWER it lowers and restores
 *      priority around itself.  Only the priority_low/priority_medium pair leaves
 *      the thread at low priority in between; callers pair them.
 */
#include "spin_hint.h"

#define BARRIER() __asm__ __volatile__("" ::: "memory")

void manycore_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
    __asm__ __volatile__("isb sy" ::: "memory");
#elif defined(__powerpc64__) || defined(__powerpc__)
    __asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory");
#elif defined(__riscv)
    __asm__ __volatile__(".insn i 0x0F, 0, x0, x0, 0x010" ::: "memory");
#else
    BARRIER();
#endif
}

void manycore_spin_hint_yield(void) {
#if defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    manycore_spin_hint();
#endif
}

void manycore_spin_hint_while_low(void) {
#if defined(__powerpc64__) || defined(__powerpc__)
    /* Re-assert low priority: cheap, and robust if something raised it. */
    __asm__ __volatile__("or 1,1,1" ::: "memory");
#else
    manycore_spin_hint();
#endif
}

void manycore_priority_low(void) {
#if defined(__powerpc64__) || defined(__powerpc__)
    __asm__ __volatile__("or 1,1,1" ::: "memory");
#else
    BARRIER();
#endif
}

void manycore_priority_medium(void) {
#if defined(__powerpc64__) || defined(__powerpc__)
    __asm__ __volatile__("or 2,2,2" ::: "memory");
#else
    BARRIER();
#endif
}

const char *manycore_spin_hint_name(void) {
#if defined(__x86_64__) || defined(__i386__)
    return "pause";
#elif defined(__aarch64__)
    return "isb";
#elif defined(__powerpc64__) || defined(__powerpc__)
    return "or 1,1,1 / or 2,2,2";
#elif defined(__riscv)
    return "pause";
#else
    return "compiler barrier";
#endif
}
