//! Stand-alone `lockbench` with the same arguments as `manycore lockbench`:
//! `cargo run --release -p manycore-lockbench --example lockbench -- --quick`.

use clap::Parser;
use manycore_lockbench::LockbenchArgs;

#[derive(Parser)]
#[command(
    name = "lockbench",
    about = "Lock strategies, delay loops and spin-hint cost"
)]
struct Cli {
    #[command(flatten)]
    args: LockbenchArgs,
}

fn main() {
    let cli = Cli::parse();
    if let Err(error) = manycore_lockbench::run(&cli.args) {
        eprintln!("lockbench: {error}");
        std::process::exit(1);
    }
}
