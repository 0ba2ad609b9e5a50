#!/usr/bin/env python3
"""Restart time after kill -9: manycore and MariaDB with the same sysbench data, one run.

For each server: start it on an empty data directory, `sysbench oltp_read_write prepare`
(N tables x M rows), note COUNT(*) and SUM(k) of every table, kill -9, and keep a copy of
the data directory as it was at the crash. Each try restores that copy, starts the server
and times from spawning the process until `SELECT 1` answers, then checks the counts and
sums and kills it again. Every try therefore recovers exactly the same crash.

manycore has two cases: `log` (the crash right after prepare: no checkpoint yet, the whole
log is replayed) and `checkpoint` (a clean shutdown first wrote a checkpoint; it is loaded
and nothing is replayed). MariaDB runs with the durable suite's settings
(`innodb_flush_log_at_trx_commit=1`, see servers.py).

    python3 bench/restart.py --manycore-bin target/release/manycore [--tries 5]
        [--compare-bin OLD_BINARY]   # also time another build on the same crashes

Prints one line per try and a table of medians; `--out DIR` also writes results.json.
Server processes are started and stopped by PID through servers.Registry.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import servers as srv  # noqa: E402
import sysbench  # noqa: E402

READY_TIMEOUT_S = 600.0
POLL_INTERVAL_S = 0.01


def answers(port: int) -> bool:
    """Whether the server accepts a connection and answers SELECT 1."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    try:
        srv.mysql_query(port, "SELECT 1", timeout=30)
        return True
    except RuntimeError:
        return False


def fingerprint(port: int, tables: int) -> list[str]:
    sql = "; ".join(f"SELECT COUNT(*), SUM(k) FROM sbtest.sbtest{i}" for i in range(1, tables + 1))
    return srv.mysql_query(port, sql, timeout=300).split()


def timed_start(reg: srv.Registry, argv: list[str], port: int, log: Path) -> tuple[float,
                                                                                  subprocess.Popen]:
    started = time.monotonic()
    proc = reg.spawn(argv, stdout=open(log, "a"), server=True)
    while not answers(port):
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {log}")
        if time.monotonic() - started > READY_TIMEOUT_S:
            raise RuntimeError(f"not ready after {READY_TIMEOUT_S:.0f} s: {log}")
        time.sleep(POLL_INTERVAL_S)
    return time.monotonic() - started, proc


@dataclass
class Case:
    """A server to restart: its data directory (restored from `<data>.crash` each try),
    its command line for a port, and the fingerprint its data must have."""

    data: Path
    argv: Callable[[int], list[str]]
    expected: list[str]


def measure(reg: srv.Registry, workdir: Path, cases: dict[str, Case], tries: int,
            tables: int) -> dict[str, list[float]]:
    """Per try and case (cases alternate, so load from elsewhere hits each alike): restore
    the data directory, restart, time, check, kill -9."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for i in range(tries):
        for name, case in cases.items():
            shutil.rmtree(case.data)
            shutil.copytree(case.data.with_suffix(".crash"), case.data, symlinks=True)
            subprocess.run(["sync"], check=False)
            port = srv.free_port()
            log = workdir / f"{name}-restart.log"
            seconds, proc = timed_start(reg, case.argv(port), port, log)
            found = fingerprint(port, tables)
            kill9(reg, proc)
            if found != case.expected:
                raise RuntimeError(f"{name}: data after restart differs: {found} != "
                                   f"{case.expected}")
            print(f"  {name} try {i + 1}: {seconds:.2f} s", flush=True)
            times[name].append(seconds)
    return times


def load(reg: srv.Registry, server: srv.Server, cfg: sysbench.Data) -> list[str]:
    srv.mysql_query(server.port, "CREATE DATABASE IF NOT EXISTS sbtest")
    started = time.monotonic()
    sysbench.prepare(server.port, cfg, timeout=3600)
    print(f"  {server.name}: prepared in {time.monotonic() - started:.1f} s", flush=True)
    return fingerprint(server.port, cfg.tables)


def kill9(reg: srv.Registry, proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    reg.stop(proc)  # Only forgets it: it has exited.


def crash(reg: srv.Registry, server: srv.Server, data: Path) -> None:
    """kill -9, then keep the data directory as the crash left it."""
    kill9(reg, server.proc)
    shutil.copytree(data, data.with_suffix(".crash"), symlinks=True)


def run(args: argparse.Namespace, reg: srv.Registry, workdir: Path) -> dict[str, list[float]]:
    cfg = sysbench.Data(tables=args.tables, table_size=args.table_size)
    names = args.only.split(",")
    crashed: dict[str, Case] = {}  # The crash right after prepare.
    if "manycore" in names:
        mc = workdir / "manycore"
        mc.mkdir()
        data = mc / "manycore-data"
        binaries = {"manycore": Path(args.manycore_bin).resolve()}
        if args.compare_bin:
            binaries["baseline"] = Path(args.compare_bin).resolve()
        server = srv.start_manycore(reg, binaries["manycore"], mc)
        expected = load(reg, server, cfg)
        crash(reg, server, data)
        for name, path in binaries.items():
            argv = (lambda p: lambda port: srv.manycore_argv(p, mc, port))(path)
            crashed[name] = Case(data, argv, expected)
    if "mariadb" in names:
        md = workdir / "mariadb"
        md.mkdir()
        server = srv.start_mariadb(reg, md, durable=True)
        expected = load(reg, server, cfg)
        crash(reg, server, md / "mariadb-data")
        crashed["mariadb"] = Case(md / "mariadb-data",
                                  lambda port: srv.mariadbd_argv(md, port, durable=True),
                                  expected)
    results = {f"{name} log" if name != "mariadb" else name: times
               for name, times in measure(reg, workdir, crashed, args.tries,
                                          cfg.tables).items()}
    manycore = {name: case for name, case in crashed.items() if name != "mariadb"}
    if manycore:
        # A clean shutdown writes a checkpoint; restarts then load it and replay nothing.
        first = manycore["manycore"]
        shutil.rmtree(first.data)
        shutil.copytree(first.data.with_suffix(".crash"), first.data, symlinks=True)
        port = srv.free_port()
        _, proc = timed_start(reg, first.argv(port), port, workdir / "checkpoint.log")
        reg.stop(proc, grace=600)
        shutil.rmtree(first.data.with_suffix(".crash"))
        shutil.copytree(first.data, first.data.with_suffix(".crash"), symlinks=True)
        for name, times in measure(reg, workdir, manycore, args.tries, cfg.tables).items():
            results[f"{name} checkpoint"] = times
    return results


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--manycore-bin", default="target/release/manycore")
    p.add_argument("--compare-bin", help="another manycore binary (say, before a change) "
                   "timed on the same crashed data directories")
    p.add_argument("--only", default="manycore,mariadb", help="manycore,mariadb or one")
    p.add_argument("--tables", type=int, default=8)
    p.add_argument("--table-size", type=int, default=100_000)
    p.add_argument("--tries", type=int, default=5)
    p.add_argument("--out", help="directory for results.json")
    args = p.parse_args(argv)
    reg = srv.Registry()
    workdir = Path(tempfile.mkdtemp(prefix="manycore-bench-restart-", dir="/var/tmp"))
    try:
        results = run(args, reg, workdir)
    finally:
        reg.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nrestart after kill -9, {args.tables} x {args.table_size} rows, "
          f"{args.tries} tries (seconds until SELECT 1 answers)")
    print("| server | median | tries |\n|---|---|---|")
    for name, times in results.items():
        print(f"| {name} | {statistics.median(times):.2f} | "
              f"{', '.join(f'{t:.2f}' for t in times)} |")
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "results.json").write_text(json.dumps(
            {"tables": args.tables, "table_size": args.table_size, "results": results,
             "medians": {k: statistics.median(v) for k, v in results.items()}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
