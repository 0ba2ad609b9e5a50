//! Drivers of other languages against the server under test (`MANYCORE_TEST_TARGET`):
//! go-sql-driver/mysql (Go), mysql2 and mariadb (Node.js), MariaDB Connector/J and MySQL
//! Connector/J (Java), PyMySQL, mysqlclient, SQLAlchemy's ORM and Django's migrations and
//! ORM (Python, from Debian's packages).
//!
//! Each program lives in `tests/drivers/<language>/` with its pinned dependencies and
//! checks real behaviour: types round-tripping exactly through both protocols, affected
//! rows and insert ids, transactions, error codes and SQLSTATEs, multi-statements, ping,
//! a prepared statement reused many times. It prints every mismatch and exits non-zero on
//! any; this file installs its dependencies, runs it with DB_HOST and DB_PORT set, and
//! fails with its output.
//!
//! Invariants:
//! (1) Downloads (Go modules, npm packages, Maven jars) are cached under
//!     `<target dir>/driver-cache` (npm's `node_modules` beside its package.json, which
//!     git ignores), so only the first run needs the registries.
//! (2) Every install and run is bounded in time and killed past it (`run_bounded`).
//! (3) A missing toolchain fails the test when `CI` is set, so CI cannot skip silently;
//!     elsewhere the test is skipped with a loud message.

use manycore_testkit::client::{run_bounded, CommandOutput};
use manycore_testkit::manycore::{target_dir, workspace_dir};
use manycore_testkit::Server;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Installing a language's dependencies the first time: downloads and compiles.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(300);
/// One driver program's run against the server.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

fn program_dir(language: &str) -> PathBuf {
    workspace_dir().join("tests/drivers").join(language)
}

fn cache_dir(language: &str) -> PathBuf {
    let dir = target_dir().join("driver-cache").join(language);
    std::fs::create_dir_all(&dir).expect("create the driver cache directory");
    dir
}

/// True if every tool answers `--version` (or `-version`); otherwise false after a loud
/// message, or a panic under CI (invariant (3)).
fn toolchain_present(language: &str, tools: &[(&str, &str)]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .filter(|(tool, flag)| {
            !Command::new(tool)
                .arg(flag)
                .output()
                .is_ok_and(|out| out.status.success())
        })
        .map(|(tool, _)| *tool)
        .collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!(
        "{language} driver tests need {}: install them (scripts/test.sh does, from apt)",
        missing.join(", ")
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("\n!!! SKIPPED: {message} !!!\n");
    false
}

/// Runs `command` bounded by `timeout`; panics with everything it printed unless it
/// succeeded.
fn run(what: &str, mut command: Command, dir: &Path, timeout: Duration) -> CommandOutput {
    command.current_dir(dir);
    let start = Instant::now();
    let out = run_bounded(command, b"", timeout);
    assert!(out.success(), "{what} failed: {out}");
    eprintln!("{what}: ok in {:.1?}", start.elapsed());
    out
}

/// Runs one driver program against `server` with DB_HOST and DB_PORT set.
fn run_against(server: &Server, what: &str, mut command: Command, dir: &Path) {
    command
        .env("DB_HOST", "127.0.0.1")
        .env("DB_PORT", server.port().to_string());
    let label = format!("{what} against {:?}", server.target());
    let out = run(&label, command, dir, RUN_TIMEOUT);
    eprint!("{}", out.stdout);
}

#[test]
fn go_sql_driver_both_protocols() {
    if !toolchain_present("Go", &[("go", "version")]) {
        return;
    }
    let dir = program_dir("go");
    let cache = cache_dir("go");
    let binary = cache.join("drivercheck");
    let mut build = Command::new("go");
    build
        .args(["build", "-o"])
        .arg(&binary)
        .arg(".")
        .env("GOMODCACHE", cache.join("mod"))
        .env("GOCACHE", cache.join("build"))
        // Writable module files, so removing the target directory works.
        .env("GOFLAGS", "-mod=readonly -modcacherw");
    run("go build", build, &dir, INSTALL_TIMEOUT);

    let server = Server::from_env();
    for mode in ["binary", "text"] {
        let mut command = Command::new(&binary);
        command.arg(mode);
        run_against(
            &server,
            &format!("go-sql-driver/mysql {mode}"),
            command,
            &dir,
        );
    }
}

#[test]
fn node_mysql2_and_mariadb() {
    if !toolchain_present("Node.js", &[("node", "--version"), ("npm", "--version")]) {
        return;
    }
    let dir = program_dir("node");
    let mut install = Command::new("npm");
    install
        .args(["ci", "--prefer-offline", "--no-audit", "--no-fund"])
        .env("npm_config_cache", cache_dir("node").join("npm"));
    run("npm ci", install, &dir, INSTALL_TIMEOUT);

    let server = Server::from_env();
    for driver in ["mysql2", "mariadb"] {
        let mut command = Command::new("node");
        command.args(["check.js", driver]);
        run_against(&server, driver, command, &dir);
    }
}

#[test]
fn java_connector_j_mariadb_and_mysql() {
    let tools = [("java", "-version"), ("javac", "-version"), ("mvn", "-v")];
    if !toolchain_present("Java", &tools) {
        return;
    }
    let dir = program_dir("java");
    let cache = cache_dir("java");
    let jars = cache.join("jars");
    let classes = cache.join("classes");
    let mut fetch = Command::new("mvn");
    fetch
        .args(["-q", "-B", "dependency:copy-dependencies"])
        .arg(format!("-Dmaven.repo.local={}", cache.join("m2").display()))
        .arg(format!("-DoutputDirectory={}", jars.display()));
    run(
        "mvn dependency:copy-dependencies",
        fetch,
        &dir,
        INSTALL_TIMEOUT,
    );
    let classpath = format!("{}:{}/*", classes.display(), jars.display());
    let mut compile = Command::new("javac");
    compile
        .arg("-d")
        .arg(&classes)
        .args(["-cp", &classpath, "Check.java"]);
    run("javac", compile, &dir, INSTALL_TIMEOUT);

    let server = Server::from_env();
    for driver in ["mariadb", "mysql"] {
        for server_prepared in ["true", "false"] {
            let mut command = Command::new("java");
            command.args(["-cp", &classpath, "Check", driver, server_prepared]);
            let what = format!("{driver} Connector/J useServerPrepStmts={server_prepared}");
            run_against(&server, &what, command, &dir);
        }
    }
}

#[test]
fn python_pymysql_mysqlclient_sqlalchemy_and_django() {
    // Debian's python3 with its packaged drivers (scripts/test.sh installs them).
    let python = "/usr/bin/python3";
    let imports = "import pymysql, MySQLdb, sqlalchemy, django";
    let present = Command::new(python)
        .args(["-c", imports])
        .output()
        .is_ok_and(|out| out.status.success());
    if !present {
        let message = "Python driver tests need python3-pymysql, python3-mysqldb, \
                       python3-sqlalchemy and python3-django: install them (scripts/test.sh \
                       does, from apt)";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("\n!!! SKIPPED: {message} !!!\n");
        return;
    }
    let dir = program_dir("python");
    let server = Server::from_env();
    for program in ["pymysql", "mysqldb", "sqlalchemy", "django"] {
        let mut command = Command::new(python);
        command.args(["check.py", program]);
        run_against(&server, program, command, &dir);
    }
}
