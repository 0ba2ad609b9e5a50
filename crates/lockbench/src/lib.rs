//! `manycore lockbench`: measures, on the machine it runs on, the choices
//! manycore-sync makes for waiting on a lock.
//!
//! 1. Spin-hint cost: the startup calibration (16 hints timed, MariaDB-style).
//! 2. Acquire strategies under contention (`contention`): TAS, TTAS with CAS, a
//!    ticket lock, manycore_sync's spin-then-park mutex, parking_lot and std, at
//!    1 to 512 threads, short and long critical sections: throughput and fairness.
//! 3. Delay loops (`delay`): the old InnoDB delay, an empty loop, the spin hint:
//!    the work a sibling thread gets done, and the spinner's probe rate.
//! 4. Per-worker counters (`padding`): padded vs unpadded, two writers.
//!
//! Output: tables on stdout, or `--json`; `--chart PATH` writes an SVG.
//!
//! Invariants:
//! (1) `--quick` finishes in under a minute on a 2-core machine: fewer thread
//!     counts and [`QUICK_POINT_MS`] per point.
//! (2) A measurement that detects a broken lock (lost updates) fails the run.
//! (3) Progress goes to stderr, results to stdout, so `--json` output is clean.

pub mod chart;
pub mod contention;
pub mod delay;
pub mod locks;
pub mod padding;
mod table;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use contention::{ContentionResult, CriticalSection};
use delay::DelayResult;
use locks::Strategy;
use padding::PaddingResult;

/// Milliseconds per contention point with `--quick`.
pub const QUICK_POINT_MS: u64 = 80;
/// Milliseconds per contention point in a full run.
pub const FULL_POINT_MS: u64 = 400;
/// Thread counts of a full run: doubling up to 512 (oversubscribed on any VM).
pub const FULL_THREADS: [usize; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/// Thread counts of a quick run.
pub const QUICK_THREADS: [usize; 6] = [1, 2, 4, 16, 64, 512];

/// Arguments of `manycore lockbench`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LockbenchArgs {
    /// Short run: fewer thread counts and 80 ms per point (under a minute on 2 cores).
    #[arg(long)]
    pub quick: bool,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Write an SVG chart of throughput against threads to PATH.
    #[arg(long, value_name = "PATH")]
    pub chart: Option<PathBuf>,
    /// Thread counts, comma separated (default 1,2,4,...,512; quick 1,2,4,16,64,512).
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub threads: Vec<usize>,
    /// Milliseconds per contention point (default 400; quick 80).
    #[arg(long, value_name = "MS")]
    pub point_ms: Option<u64>,
}

/// What the run measured on which machine.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub machine: Machine,
    pub hint_costs: Vec<HintCost>,
    pub contention: Vec<ContentionResult>,
    pub delay_loops: Vec<DelayResult>,
    pub counters: Vec<PaddingResult>,
    pub run_seconds: f64,
}

/// The machine the numbers belong to.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    pub arch: &'static str,
    pub cpu_model: String,
    pub cores: usize,
    pub spin_hint: &'static str,
    pub spin_budget_us: f64,
    pub spinners_max: usize,
}

/// The calibrated cost of one delay primitive.
#[derive(Debug, Clone, Serialize)]
pub struct HintCost {
    pub name: &'static str,
    pub ns_per_hint: f64,
    pub ns_per_16: f64,
}

/// Runs lockbench and prints the report (the `manycore lockbench` subcommand).
pub fn run(args: &LockbenchArgs) -> Result<(), String> {
    let report = measure(args)?;
    if let Some(path) = &args.chart {
        let title = format!(
            "manycore lockbench: {} ({} cores, {})",
            report.machine.cpu_model, report.machine.cores, report.machine.arch
        );
        std::fs::write(path, chart::render(&report.contention, &title))
            .map_err(|error| format!("writing chart {}: {error}", path.display()))?;
        eprintln!("lockbench: chart written to {}", path.display());
    }
    if args.json {
        let json = serde_json::to_string_pretty(&report)
            .map_err(|error| format!("encoding JSON: {error}"))?;
        println!("{json}");
    } else {
        print!("{}", table::render(&report));
    }
    Ok(())
}

/// Runs every measurement and returns the report without printing it.
pub fn measure(args: &LockbenchArgs) -> Result<Report, String> {
    let started = Instant::now();
    let threads: Vec<usize> = if !args.threads.is_empty() {
        args.threads.clone()
    } else if args.quick {
        QUICK_THREADS.to_vec()
    } else {
        FULL_THREADS.to_vec()
    };
    if threads.contains(&0) {
        return Err("--threads: thread counts must be at least 1".to_string());
    }
    let point = Duration::from_millis(args.point_ms.unwrap_or(if args.quick {
        QUICK_POINT_MS
    } else {
        FULL_POINT_MS
    }));
    let side_duration = if args.quick {
        Duration::from_millis(250)
    } else {
        Duration::from_secs(1)
    };

    eprintln!("lockbench: calibrating spin hints");
    let machine = machine();
    let hint_costs = hint_costs();

    let mut contention = Vec::new();
    for kind in [CriticalSection::Short, CriticalSection::Long] {
        for &count in &threads {
            for strategy in Strategy::ALL {
                eprintln!(
                    "lockbench: {} critical section, {count} threads, {}",
                    kind.label(),
                    strategy.label()
                );
                contention.push(contention::measure(strategy, kind, count, point)?);
            }
        }
    }
    eprintln!("lockbench: delay loops");
    let delay_loops = delay::measure_all(side_duration)?;
    eprintln!("lockbench: per-worker counters");
    let counters = padding::measure_all(side_duration)?;
    Ok(Report {
        machine,
        hint_costs,
        contention,
        delay_loops,
        counters,
        run_seconds: started.elapsed().as_secs_f64(),
    })
}

fn machine() -> Machine {
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name") || line.starts_with("cpu\t"))
                .and_then(|line| line.split(':').nth(1))
                .map(|model| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    Machine {
        arch: std::env::consts::ARCH,
        cpu_model,
        cores: std::thread::available_parallelism().map_or(1, |cores| cores.get()),
        spin_hint: manycore_sync::spin_hint_name(),
        spin_budget_us: manycore_sync::spin_budget().as_secs_f64() * 1e6,
        spinners_max: manycore_sync::spin_wait::spinners_max(),
    }
}

fn hint_costs() -> Vec<HintCost> {
    let as_cost = |name, calibration: &manycore_sync::SpinCalibration| HintCost {
        name,
        ns_per_hint: calibration.hint_cost_ns(),
        ns_per_16: calibration.batch_of_16_ns,
    };
    let mut costs = vec![
        as_cost(
            manycore_sync::spin_hint_name(),
            manycore_sync::calibrate_spin_hint(),
        ),
        as_cost(
            "compiler barrier",
            &manycore_sync::calibrate::measure(manycore_sync::compiler_barrier),
        ),
    ];
    if cfg!(target_arch = "aarch64") {
        costs.push(as_cost(
            "yield",
            &manycore_sync::calibrate::measure(manycore_sync::spin_hint_yield),
        ));
    }
    costs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_run_produces_every_section() {
        let args = LockbenchArgs {
            quick: true,
            threads: vec![1, 3],
            point_ms: Some(10),
            ..LockbenchArgs::default()
        };
        let report = measure(&args).expect("runs");
        assert_eq!(report.contention.len(), 2 * 2 * Strategy::ALL.len());
        assert!(report.hint_costs[0].ns_per_hint > 0.0);
        assert!(!report.delay_loops.is_empty());
        assert_eq!(report.counters.len(), 3);
        let text = table::render(&report);
        assert!(text.contains("ttas-cas") && text.contains("spin_hint"));
        let json = serde_json::to_string(&report).expect("serialises");
        assert!(json.contains("\"strategy\":\"ttas_cas\""));
    }

    #[test]
    fn zero_threads_is_an_error() {
        let args = LockbenchArgs {
            threads: vec![0],
            ..LockbenchArgs::default()
        };
        assert!(measure(&args).is_err());
    }
}
