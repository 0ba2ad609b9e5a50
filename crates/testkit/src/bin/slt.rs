//! `slt`: runs sqllogictest files against a server and prints per-file and total
//! pass counts. A reporting tool, not a gate: it exits 0 whatever the counts,
//! non-zero only if it cannot run (bad arguments, no server).
//!
//! Usage: slt [--server manycore|mariadb | --port P [--host H]] [--max-files N]
//!            [--file-timeout SECONDS] [--filter TEXT] [--verbose] [PATH...]
//!
//! PATH is a file or a directory searched for `*.test`; default `$SLT_DIR` or
//! `../shared/slt`. `--server` starts a throwaway server of that kind;
//! `--max-files N` runs the N smallest files (a quick sample for CI).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use manycore_testkit::client::opts;
use manycore_testkit::slt::{parse, run_file, Connector};
use manycore_testkit::{ManycoreServer, MariaDb};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts};

struct Args {
    host: String,
    port: Option<u16>,
    server: Option<String>,
    max_files: Option<usize>,
    file_timeout: Duration,
    filter: String,
    verbose: bool,
    paths: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        host: "127.0.0.1".into(),
        port: None,
        server: None,
        max_files: None,
        file_timeout: Duration::from_secs(600),
        filter: String::new(),
        verbose: false,
        paths: Vec::new(),
    };
    let mut iter = std::env::args().skip(1);
    while let Some(arg) = iter.next() {
        let mut value = |name: &str| iter.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--host" => args.host = value("--host")?,
            "--port" => {
                args.port = Some(
                    value("--port")?
                        .parse()
                        .map_err(|e| format!("--port: {e}"))?,
                )
            }
            "--server" => args.server = Some(value("--server")?),
            "--max-files" => {
                args.max_files = Some(
                    value("--max-files")?
                        .parse()
                        .map_err(|e| format!("--max-files: {e}"))?,
                )
            }
            "--file-timeout" => {
                let seconds: u64 = value("--file-timeout")?
                    .parse()
                    .map_err(|e| format!("--file-timeout: {e}"))?;
                args.file_timeout = Duration::from_secs(seconds);
            }
            "--filter" => args.filter = value("--filter")?,
            "--verbose" | "-v" => args.verbose = true,
            "--help" | "-h" => return Err(String::new()),
            flag if flag.starts_with("--") => return Err(format!("unknown flag {flag}")),
            path => args.paths.push(PathBuf::from(path)),
        }
    }
    if args.paths.is_empty() {
        args.paths.push(
            std::env::var_os("SLT_DIR")
                .map_or_else(|| PathBuf::from("../shared/slt"), PathBuf::from),
        );
    }
    if args.port.is_none() && args.server.is_none() {
        return Err("give --server manycore|mariadb or --port".into());
    }
    Ok(args)
}

fn collect_files(path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            collect_files(&entry?.path(), files)?;
        }
    } else if path.extension().is_some_and(|e| e == "test") {
        files.push(path.to_path_buf());
    }
    Ok(())
}

struct TcpConnector {
    host: String,
    port: u16,
}

impl TcpConnector {
    fn connect(&self) -> Result<Conn, String> {
        let builder = opts(self.port, None).ip_or_hostname(Some(self.host.clone()));
        Conn::new(Opts::from(builder)).map_err(|e| e.to_string())
    }
}

impl Connector for TcpConnector {
    fn fresh(&self, database: &str) -> Result<Conn, String> {
        let mut conn = self.connect()?;
        for sql in [
            format!("DROP DATABASE IF EXISTS {database}"),
            format!("CREATE DATABASE {database}"),
            format!("USE {database}"),
        ] {
            conn.query_drop(&sql).map_err(|e| format!("{sql}: {e}"))?;
        }
        Ok(conn)
    }

    fn reconnect(&self, database: &str) -> Result<Conn, String> {
        let mut conn = self.connect()?;
        conn.query_drop(format!("USE {database}"))
            .map_err(|e| e.to_string())?;
        Ok(conn)
    }
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("slt: {why}");
            }
            eprintln!(
                "usage: slt [--server manycore|mariadb | --port P [--host H]] [--max-files N] \
                 [--file-timeout SECONDS] [--filter TEXT] [--verbose] [PATH...]"
            );
            std::process::exit(2);
        }
    };
    let mut files = Vec::new();
    for path in &args.paths {
        if let Err(e) = collect_files(path, &mut files) {
            eprintln!("slt: {}: {e}", path.display());
            std::process::exit(2);
        }
    }
    files.retain(|f| f.to_string_lossy().contains(&args.filter));
    files.sort();
    if let Some(max) = args.max_files {
        let mut by_size: Vec<(u64, PathBuf)> = files
            .iter()
            .map(|f| (f.metadata().map_or(u64::MAX, |m| m.len()), f.clone()))
            .collect();
        by_size.sort();
        files = by_size.into_iter().take(max).map(|(_, f)| f).collect();
        files.sort();
    }
    if files.is_empty() {
        eprintln!("slt: no .test files under {:?}", args.paths);
        std::process::exit(2);
    }

    // Keep a started server alive for the whole run (it stops when this drops).
    let (_server_guard, port): (Option<Box<dyn std::any::Any>>, u16) = match args.server.as_deref()
    {
        Some("manycore") => {
            let server = ManycoreServer::start();
            let port = server.port();
            (Some(Box::new(server)), port)
        }
        Some("mariadb") => {
            let server = MariaDb::start();
            let port = server.port();
            (Some(Box::new(server)), port)
        }
        Some(other) => {
            eprintln!("slt: --server {other}: expected manycore or mariadb");
            std::process::exit(2);
        }
        None => (None, args.port.expect("checked in parse_args")),
    };
    let connector = TcpConnector {
        host: args.host.clone(),
        port,
    };

    let run_started = Instant::now();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (index, path) in files.iter().enumerate() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                println!("{}: cannot read: {e}", path.display());
                continue;
            }
        };
        let records = match parse(&text) {
            Ok(records) => records,
            Err(e) => {
                println!("{}: cannot parse: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let started = Instant::now();
        let report = run_file(
            &connector,
            &name,
            &records,
            &format!("slt_{index}"),
            args.file_timeout,
        );
        println!(
            "{}: passed {}, failed {}, skipped {}{} ({:.1}s)",
            path.display(),
            report.passed,
            report.failed,
            report.skipped,
            if report.timed_out {
                " (time limit reached)"
            } else {
                ""
            },
            started.elapsed().as_secs_f64()
        );
        const FAILURES_SHOWN_MAX: usize = 5;
        let shown = if args.verbose {
            report.failures.len()
        } else {
            FAILURES_SHOWN_MAX
        };
        for failure in report.failures.iter().take(shown) {
            println!("    {}", failure.replace('\n', " "));
        }
        if report.failures.len() > shown {
            println!(
                "    ... {} more failures (--verbose shows all)",
                report.failures.len() - shown
            );
        }
        passed += report.passed;
        failed += report.failed;
        skipped += report.skipped;
    }
    println!(
        "slt total: {} files, {passed} records passed, {failed} failed, {skipped} skipped ({:.1}s)",
        files.len(),
        run_started.elapsed().as_secs_f64()
    );
}
