//! The acceptance test: sysbench 1.0.20's OLTP workloads against the
//! server under test, with server-side prepared statements and without.
//! Each run must exit 0 with zero reconnects and ignored errors under 1% of
//! transactions. `SYSBENCH_TIME` (seconds per run, default 5) shortens or
//! lengthens the runs; the checks do not depend on it.

use std::time::Duration;

use manycore_testkit::{sysbench, CommandOutput, Server};
use mysql::prelude::Queryable;

const WORKLOADS: &[&str] = &[
    "oltp_point_select",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_read_write",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
];
const TABLE_ARGS: &[&str] = &["--mysql-db=sbtest", "--tables=4", "--table-size=10000"];

/// The number after `label` on the first line containing it, e.g.
/// `    transactions:  1234   (246.7 per sec.)` -> 1234.
fn counter(output: &str, label: &str) -> Option<u64> {
    let line = output.lines().find(|l| l.trim_start().starts_with(label))?;
    line.trim_start()[label.len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Checks one run; Err describes what is wrong, with sysbench's output.
fn check_run(workload: &str, ps_mode: &str, out: &CommandOutput) -> Result<(), String> {
    let context = format!("{workload} --db-ps-mode={ps_mode}");
    if !out.success() {
        return Err(format!("{context} failed: {out}"));
    }
    let field = |label: &str| {
        counter(&out.stdout, label).ok_or_else(|| format!("{context}: no '{label}' line: {out}"))
    };
    let transactions = field("transactions:")?;
    let ignored = field("ignored errors:")?;
    let reconnects = field("reconnects:")?;
    if transactions == 0 {
        return Err(format!("{context}: no transactions: {out}"));
    }
    if reconnects != 0 {
        return Err(format!("{context}: {reconnects} reconnects: {out}"));
    }
    if ignored * 100 >= transactions {
        return Err(format!(
            "{context}: {ignored} ignored errors in {transactions} transactions"
        ));
    }
    Ok(())
}

fn run_all(ps_mode: &str) {
    let server = Server::from_env();
    let port = server.port();
    server
        .connect()
        .query_drop("CREATE DATABASE sbtest")
        .expect("create sbtest");
    let seconds = std::env::var("SYSBENCH_TIME").unwrap_or_else(|_| "5".into());
    let run_limit = Duration::from_secs(seconds.parse::<u64>().unwrap_or(5) + 120);
    let prepare_limit = Duration::from_secs(600);

    let out = sysbench(
        port,
        "oltp_read_write",
        &[TABLE_ARGS, &["--threads=4", "prepare"]].concat(),
        prepare_limit,
    );
    assert!(out.success(), "prepare failed: {out}");
    let time_arg = format!("--time={seconds}");
    let mode_arg = format!("--db-ps-mode={ps_mode}");
    let mut failures = Vec::new();
    for workload in WORKLOADS {
        let args = [
            TABLE_ARGS,
            &[
                "--threads=8",
                &time_arg,
                &mode_arg,
                "--report-interval=0",
                "run",
            ],
        ]
        .concat();
        let out = sysbench(port, workload, &args, run_limit);
        // Every workload runs even after one fails: the report lists them all.
        if let Err(failure) = check_run(workload, ps_mode, &out) {
            failures.push(failure);
        }
    }
    let out = sysbench(
        port,
        "oltp_read_write",
        &[TABLE_ARGS, &["cleanup"]].concat(),
        prepare_limit,
    );
    assert!(out.success(), "cleanup failed: {out}");
    assert!(
        server.is_alive(),
        "server died; output:\n{}",
        server.log_tail()
    );
}

#[test]
fn oltp_workloads_with_prepared_statements() {
    run_all("auto");
}

#[test]
fn oltp_workloads_with_text_queries() {
    run_all("disable");
}

#[test]
fn counters_parse_sysbench_output() {
    let sample =
        "SQL statistics:\n    transactions:                        1234   (246.70 per sec.)\n    \
                  ignored errors:                      3      (0.60 per sec.)\n    \
                  reconnects:                          0      (0.00 per sec.)\n";
    assert_eq!(counter(sample, "transactions:"), Some(1234));
    assert_eq!(counter(sample, "ignored errors:"), Some(3));
    assert_eq!(counter(sample, "reconnects:"), Some(0));
}
