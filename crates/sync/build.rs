//! Build script for manycore-sync.
//!
//! 1. Declares `cfg(loom)` and `cfg(crossbeam_loom)` (crossbeam-epoch's own loom switch,
//!    which the loom run passes too) so model-checking builds are not reported as
//!    unexpected cfgs (the workspace lints table cannot be extended).
//! 2. On POWER targets only, compiles `cross/spin_hint.c`: stable Rust has no inline
//!    asm for PowerPC, so the `or 1,1,1` / `or 2,2,2` priority hints live in C there
//!    (the same file scripts/cross-arch-test.sh executes under qemu-ppc64le).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(loom)");
    println!("cargo::rustc-check-cfg=cfg(crossbeam_loom)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=cross/spin_hint.c");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch == "powerpc64" || arch == "powerpc" {
        cc::Build::new()
            .file("cross/spin_hint.c")
            .opt_level(2)
            .compile("manycore_spin_hint");
    }
}
