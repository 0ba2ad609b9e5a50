//! Build script for manycore-wal: declares `cfg(wal_loom)` so model-checking builds
//! (`RUSTFLAGS="--cfg wal_loom"`, waiters.rs) are not reported as unexpected cfgs (the
//! workspace lints table cannot be extended).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(wal_loom)");
    println!("cargo::rerun-if-changed=build.rs");
}
