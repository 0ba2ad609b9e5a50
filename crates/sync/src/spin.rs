//! Spin hints: how a waiting thread tells its core that it is doing nothing.
//!
//! Owns the only per-architecture instructions in the codebase. The C twin of this
//! file is `cross/spin_hint.c`; on POWER (no stable inline asm) the crate links it.
//!
//! Invariants:
//! (1) x86/x86_64: `PAUSE`. AArch64: `ISB SY` (`YIELD` is offered for measurement:
//!     on most cores it is a NOP, while ISB waits for the pipeline to drain, which
//!     is the delay a spin loop wants). POWER: `or 1,1,1` lowers the SMT thread
//!     priority and `or 2,2,2` restores medium. RISC-V: `PAUSE` (a FENCE hint, so
//!     it is a NOP on cores without Zihintpause). Elsewhere: a compiler barrier.
//! (2) A hint never performs an atomic read-modify-write and never writes memory.
//!     Every asm block has an implicit memory clobber (no `nomem`) so the compiler
//!     can neither delete the surrounding loop nor hoist loads across the hint.
//! (3) [`spin_hint`] is self-contained: it leaves the thread at the priority it found.
//!     Only a [`LowPriorityGuard`] keeps a POWER thread at low priority, and its
//!     `Drop` restores medium priority, so the restore runs on every exit path.
//! (4) Under `cfg(loom)` a hint is `loom::thread::yield_now()`, which lets the
//!     model checker schedule the thread that will release the waiter.

use std::marker::PhantomData;

#[cfg(any(target_arch = "powerpc64", target_arch = "powerpc"))]
mod power {
    // Implemented in cross/spin_hint.c, compiled by build.rs for POWER targets only.
    extern "C" {
        pub fn manycore_spin_hint();
        pub fn manycore_spin_hint_while_low();
        pub fn manycore_priority_low();
        pub fn manycore_priority_medium();
    }
}

/// Tells the core that this thread is busy-waiting; see invariant (1) for the
/// instruction. Costs from ~1 ns (older x86, ISB on some Arm cores) to ~40 ns
/// (PAUSE on Skylake and later): see [`crate::calibrate`].
#[inline]
pub fn spin_hint() {
    #[cfg(loom)]
    loom::thread::yield_now();

    #[cfg(all(not(loom), any(target_arch = "x86_64", target_arch = "x86")))]
    // SAFETY: PAUSE has no operands, touches no memory or stack and changes no
    // flags; it only delays the hardware thread.
    unsafe {
        core::arch::asm!("pause", options(nostack, preserves_flags));
    }

    #[cfg(all(not(loom), target_arch = "aarch64"))]
    // SAFETY: ISB SY only flushes this core's pipeline; no registers, memory or
    // flags are changed.
    unsafe {
        core::arch::asm!("isb sy", options(nostack, preserves_flags));
    }

    #[cfg(all(not(loom), any(target_arch = "powerpc64", target_arch = "powerpc")))]
    // SAFETY: the C function executes `or 1,1,1; or 2,2,2`, priority no-ops that
    // change no architected register other than the thread priority, which it
    // restores to medium before returning (invariant 3).
    unsafe {
        power::manycore_spin_hint();
    }

    #[cfg(all(not(loom), any(target_arch = "riscv64", target_arch = "riscv32")))]
    // SAFETY: this is the PAUSE encoding (FENCE with pred=W, succ=0), a hint that
    // orders nothing and writes no register; older cores execute it as a NOP.
    unsafe {
        core::arch::asm!(
            ".insn i 0x0F, 0, x0, x0, 0x010",
            options(nostack, preserves_flags)
        );
    }

    #[cfg(all(
        not(loom),
        not(any(
            target_arch = "x86_64",
            target_arch = "x86",
            target_arch = "aarch64",
            target_arch = "powerpc64",
            target_arch = "powerpc",
            target_arch = "riscv64",
            target_arch = "riscv32"
        ))
    ))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// AArch64 `YIELD`, kept so lockbench can measure it against `ISB`. On every other
/// architecture this is [`spin_hint`].
#[inline]
pub fn spin_hint_yield() {
    #[cfg(all(not(loom), target_arch = "aarch64"))]
    // SAFETY: YIELD is a hint with no operands and no architectural effect.
    unsafe {
        core::arch::asm!("yield", options(nostack, preserves_flags));
    }
    #[cfg(any(loom, not(target_arch = "aarch64")))]
    spin_hint();
}

/// A delay that only stops the compiler from deleting the loop around it: no
/// instruction at all reaches the core. The "empty loop" baseline of lockbench.
/// An empty `asm!` is used where inline asm is stable because LLVM may delete a
/// `compiler_fence` inside a loop that touches no memory (lockbench saw exactly
/// that); elsewhere `compiler_fence` is the best stable Rust offers.
#[inline]
pub fn compiler_barrier() {
    #[cfg(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "riscv64",
        target_arch = "riscv32"
    ))]
    // SAFETY: an empty template executes nothing; without `nomem` the compiler
    // must assume it reads and writes memory, which is the barrier we want.
    unsafe {
        core::arch::asm!("", options(nostack, preserves_flags));
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "riscv64",
        target_arch = "riscv32"
    )))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// The instruction [`spin_hint`] emits on this build, for reports.
pub fn spin_hint_name() -> &'static str {
    if cfg!(any(target_arch = "x86_64", target_arch = "x86")) {
        "pause"
    } else if cfg!(target_arch = "aarch64") {
        "isb sy"
    } else if cfg!(any(target_arch = "powerpc64", target_arch = "powerpc")) {
        "or 1,1,1 / or 2,2,2"
    } else if cfg!(any(target_arch = "riscv64", target_arch = "riscv32")) {
        "pause"
    } else {
        "compiler barrier"
    }
}

/// Lowers the SMT priority of this hardware thread for as long as it lives (POWER);
/// a zero-cost token elsewhere. `!Send`: the priority belongs to the hardware
/// thread that lowered it, so the guard must be dropped on the thread that made it.
pub struct LowPriorityGuard {
    not_send: PhantomData<*const ()>,
}

impl LowPriorityGuard {
    /// Lowers priority (POWER `or 1,1,1`).
    #[inline]
    pub fn new() -> Self {
        #[cfg(all(not(loom), any(target_arch = "powerpc64", target_arch = "powerpc")))]
        // SAFETY: priority no-op; the matching restore is in Drop (invariant 3).
        unsafe {
            power::manycore_priority_low();
        }
        LowPriorityGuard {
            not_send: PhantomData,
        }
    }

    /// The hint to use while this guard is held. On POWER it re-asserts low
    /// priority instead of bouncing to medium and back; elsewhere it is
    /// [`spin_hint`].
    #[inline]
    pub fn hint(&self) {
        #[cfg(all(not(loom), any(target_arch = "powerpc64", target_arch = "powerpc")))]
        // SAFETY: priority no-op (`or 1,1,1`); Drop restores medium.
        unsafe {
            power::manycore_spin_hint_while_low();
        }
        #[cfg(any(loom, not(any(target_arch = "powerpc64", target_arch = "powerpc"))))]
        spin_hint();
    }
}

impl Default for LowPriorityGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for LowPriorityGuard {
    #[inline]
    fn drop(&mut self) {
        #[cfg(all(not(loom), any(target_arch = "powerpc64", target_arch = "powerpc")))]
        // SAFETY: priority no-op (`or 2,2,2`) restoring the default medium priority.
        unsafe {
            power::manycore_priority_medium();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn hint_name_matches_architecture() {
        #[cfg(target_arch = "x86_64")]
        assert_eq!(spin_hint_name(), "pause");
        assert!(!spin_hint_name().is_empty());
    }

    #[test]
    fn hints_execute_and_take_time() {
        let start = Instant::now();
        for _ in 0..10_000 {
            spin_hint();
            spin_hint_yield();
            compiler_barrier();
        }
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn guarded_spin_wait_sees_flag_set_by_another_thread() {
        let flag = Arc::new(AtomicBool::new(false));
        let setter = {
            let flag = Arc::clone(&flag);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                flag.store(true, Ordering::Release);
            })
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        let guard = LowPriorityGuard::new();
        while !flag.load(Ordering::Acquire) && Instant::now() < deadline {
            guard.hint();
        }
        drop(guard);
        setter.join().expect("setter thread panicked");
        assert!(flag.load(Ordering::Acquire));
    }
}
