//! The `manycore` binary: command line, logging, and hand-off to `serve` or `lockbench`.

mod accounts;
mod config;
mod connection;
mod data_dir;
mod durability;
mod listener;
mod login_delay;
mod sink;
mod stream;
mod tls;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "manycore",
    version,
    about = "A MySQL-compatible OLTP server whose throughput grows with cores"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server.
    Serve(config::ServeArgs),
    /// Measure lock acquire strategies, spin-delay loops and the spin hint on this machine.
    Lockbench(manycore_lockbench::LockbenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MANYCORE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // Colours only on a terminal: a log redirected to a file stays plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let result = match cli.command {
        Command::Serve(args) => listener::serve(args),
        Command::Lockbench(args) => manycore_lockbench::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("manycore: {message}");
            ExitCode::FAILURE
        }
    }
}
