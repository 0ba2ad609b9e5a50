/*
 * Executes the spin hints of spin_hint.c in a bounded spin-wait on a flag that
 * another thread sets, on the host and (via scripts/cross-arch-test.sh) under
 * qemu-aarch64 and qemu-ppc64le.
 *
 * Checks:
 *  (1) the waiter sees the flag within the time bound, probing with each hint;
 *  (2) on POWER, the SMT priority field of the PPR (SPR 896, bits 11..13 in ISA
 *      numbering = bits 50..52 from the right) reads "low" (2) while spinning and
 *      "medium" (4) after restore, and manycore_spin_hint() alone leaves it medium.
 *      If the PPR cannot be read (SIGILL), we say so and only check that the
 *      restore call executed.
 * Exit status 0 on success; any failure prints a reason and exits 1.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spin_hint.h"

static atomic_int flag_set;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *setter(void *arg) {
    (void)arg;
    struct timespec delay = {0, 20 * 1000 * 1000};
    nanosleep(&delay, NULL);
    atomic_store_explicit(&flag_set, 1, memory_order_release);
    return NULL;
}

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

#if defined(__powerpc64__)
static sigjmp_buf ppr_jump;
static void on_sigill(int sig) { (void)sig; siglongjmp(ppr_jump, 1); }

/* Returns the PPR priority field, or -1 if the PPR is not readable here. */
static int ppr_priority(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigill;
    sigaction(SIGILL, &sa, &old);
    int result = -1;
    if (sigsetjmp(ppr_jump, 1) == 0) {
        uint64_t ppr;
        __asm__ __volatile__("mfspr %0, 896" : "=r"(ppr));
        result = (int)((ppr >> 50) & 7);
    }
    sigaction(SIGILL, &old, NULL);
    return result;
}
#else
static int ppr_priority(void) { return -1; }
#endif

/* One bounded wait: returns the number of probes it took. */
static long wait_for_flag(void (*hint)(void), int lower_priority, int *priority_while_low) {
    atomic_store(&flag_set, 0);
    pthread_t thread;
    if (pthread_create(&thread, NULL, setter, NULL) != 0) FAIL("pthread_create");
    const uint64_t deadline = now_ns() + 10ull * 1000 * 1000 * 1000;
    long probes = 0;
    if (lower_priority) manycore_priority_low();
    *priority_while_low = ppr_priority();
    while (!atomic_load_explicit(&flag_set, memory_order_acquire)) {
        hint();
        probes++;
        if ((probes & 1023) == 0 && now_ns() > deadline) break;
    }
    if (lower_priority) manycore_priority_medium();
    pthread_join(thread, NULL);
    if (!atomic_load(&flag_set)) FAIL("flag not observed within 10 s");
    return probes;
}

static void check_power_priority(const char *what, int observed, int expected) {
    if (observed < 0) return; /* not readable: reported once in main */
    if (observed != expected) FAIL("%s: PPR priority %d, expected %d", what, observed, expected);
}

int main(void) {
    int low = -1;
    int readable = ppr_priority() >= 0;
    printf("spin hint: %s\n", manycore_spin_hint_name());

    long probes = wait_for_flag(manycore_spin_hint, 0, &low);
    printf("spin_hint: flag seen after %ld probes\n", probes);
    check_power_priority("after spin_hint alone", ppr_priority(), 4);

    probes = wait_for_flag(manycore_spin_hint_while_low, 1, &low);
    printf("low-priority spin: flag seen after %ld probes\n", probes);
    check_power_priority("while spinning at low priority", low, 2);
    check_power_priority("after restore", ppr_priority(), 4);

    probes = wait_for_flag(manycore_spin_hint_yield, 0, &low);
    printf("yield variant: flag seen after %ld probes\n", probes);

    /* MariaDB-style timing of 16 hints (meaningless under emulation, printed for information). */
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < 5; round++) {
        uint64_t start = now_ns();
        for (int i = 0; i < 1024; i++)
            for (int j = 0; j < 16; j++) manycore_spin_hint();
        uint64_t elapsed = now_ns() - start;
        if (elapsed < best) best = elapsed;
    }
    printf("16 hints: %.1f ns\n", (double)best / 1024.0);

#if defined(__powerpc64__)
    if (readable) printf("PPR priority verified: low=2 while spinning, medium=4 after restore\n");
    else printf("PPR not readable here: priority restore executed but not observed\n");
#else
    (void)readable;
#endif
    printf("PASS\n");
    return 0;
}
