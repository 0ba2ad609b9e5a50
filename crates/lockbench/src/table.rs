//! Plain-text tables for the report.

use std::fmt::Write;

use crate::contention::CriticalSection;
use crate::Report;

/// Renders every section of `report` as aligned text.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let machine = &report.machine;
    let _ = writeln!(
        out,
        "machine: {} ({}), {} cores; spin hint `{}`; spin budget {:.1} us; at most {} spinners",
        machine.cpu_model,
        machine.arch,
        machine.cores,
        machine.spin_hint,
        machine.spin_budget_us,
        machine.spinners_max
    );
    let _ = writeln!(out, "\n== spin hint cost (calibrated at startup) ==");
    let _ = writeln!(out, "{:<24} {:>12} {:>12}", "primitive", "ns/hint", "ns/16");
    for cost in &report.hint_costs {
        let _ = writeln!(
            out,
            "{:<24} {:>12.2} {:>12.1}",
            cost.name, cost.ns_per_hint, cost.ns_per_16
        );
    }
    for kind in [CriticalSection::Short, CriticalSection::Long] {
        let _ = writeln!(
            out,
            "\n== {} critical section: acquisitions/s (fairness = max/min per thread) ==",
            kind.label()
        );
        let _ = writeln!(
            out,
            "{:>7} {:<12} {:>14} {:>12} {:>9}",
            "threads", "strategy", "ops/s", "fairness", "starved"
        );
        for result in report
            .contention
            .iter()
            .filter(|r| r.critical_section == kind)
        {
            let fairness = result
                .fairness_max_over_min
                .map_or_else(|| "inf".to_string(), |ratio| format!("{ratio:.2}"));
            let _ = writeln!(
                out,
                "{:>7} {:<12} {:>14.0} {:>12} {:>9}",
                result.threads,
                result.strategy.label(),
                result.ops_per_sec,
                fairness,
                result.starved_threads
            );
        }
    }
    let _ = writeln!(
        out,
        "\n== delay loops: a spinner beside a working thread =="
    );
    let _ = writeln!(
        out,
        "{:<40} {:>16} {:>10} {:>16}",
        "delay", "worker units/s", "vs alone", "probes/s"
    );
    for result in &report.delay_loops {
        let _ = writeln!(
            out,
            "{:<40} {:>16.0} {:>10.2} {:>16.0}",
            result.delay.label(),
            result.worker_units_per_sec,
            result.worker_vs_alone,
            result.spinner_probes_per_sec
        );
    }
    let _ = writeln!(out, "\n== per-worker counters: 2 writers ==");
    let _ = writeln!(
        out,
        "{:<24} {:>8} {:>16}",
        "layout", "stride", "increments/s"
    );
    for result in &report.counters {
        let _ = writeln!(
            out,
            "{:<24} {:>8} {:>16.0}",
            result.layout, result.stride_bytes, result.increments_per_sec
        );
    }
    let _ = writeln!(out, "\nrun time: {:.1} s", report.run_seconds);
    out
}
