#!/usr/bin/env python3
"""What privilege checks cost: sysbench oltp_point_select as root and as a user with
table-level grants, among 1,000 such accounts, in one run on one manycore server.

    python3 bench/grants.py [--quick] [--manycore-bin PATH] [--accounts N] [--threads T]
                            [--ps-mode auto|disable] [--time S] [--warmup S] [--repeat K]

Method
------
One throwaway manycore server (127.0.0.1, free port, data under /var/tmp) gets the
sysbench data (`oltp_read_write prepare`), then N accounts `bench_uNNNN`@`%` with a
password, each granted SELECT on every sysbench table separately (N x tables rows in
mysql.tables_priv: table-level grants only). sysbench oltp_point_select (prepared
statements, --db-ps-mode=auto, or the text protocol with --ps-mode disable, where every
statement binds and so checks its table) then runs as root (global ALL: the check is one bit test)
and as the account in the middle of the list (the check is the session's own map lookups),
alternating root and user K times (in alternating order) with the same warm-up and
interval, and the medians are compared, as well as the ratio within each repeat. The goal in issue #6 is user/root >= 0.97.

Measured QPS is sysbench's checkpoint report for the interval after warm-up (see
bench/sysbench.py). Everything started is stopped by PID at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import servers as srv  # noqa: E402
import sysbench  # noqa: E402

USER_PASSWORD = "bench-pw"
#: Accounts created (and tables granted) per statement: fewer snapshot rebuilds.
BATCH = 100


def account(i: int) -> str:
    return f"bench_u{i:04d}"


def create_accounts(port: int, accounts: int, tables: int) -> None:
    for start in range(0, accounts, BATCH):
        names = [account(i) for i in range(start, min(start + BATCH, accounts))]
        specs = ", ".join(f"{n}@'%' IDENTIFIED BY '{USER_PASSWORD}'" for n in names)
        srv.mysql_query(port, f"CREATE USER {specs}", timeout=300)
        grantees = ", ".join(f"{n}@'%'" for n in names)
        for t in range(1, tables + 1):
            srv.mysql_query(port, f"GRANT SELECT ON sbtest.sbtest{t} TO {grantees}",
                            timeout=300)


def run_point_select(port: int, data: sysbench.Data, threads: int, ps_mode: str, user: str,
                     password: str, warmup: float, seconds: float) -> float:
    argv = sysbench.run_args("oltp_point_select", port, data, threads, ps_mode, warmup,
                             seconds)
    argv = [a for a in argv if not a.startswith(("--mysql-user=", "--mysql-password="))]
    argv[2:2] = [f"--mysql-user={user}", f"--mysql-password={password}"]
    done = subprocess.run(argv, capture_output=True, text=True,
                          timeout=warmup + seconds + 120)
    if done.returncode != 0:
        raise RuntimeError(f"sysbench as {user} failed: "
                           + (done.stderr.strip() or done.stdout.strip())[-500:])
    report = sysbench.parse_report(done.stdout)
    if report.errors:
        raise RuntimeError(f"sysbench as {user}: {report.errors} errors")
    return report.qps


def default_binary() -> Path:
    repo = Path(__file__).resolve().parent.parent
    target = Path(os.environ.get("CARGO_TARGET_DIR", repo / "target"))
    return (target if target.is_absolute() else repo / target) / "release" / "manycore"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="2 x 10k rows, 5 s intervals, 3 repeats")
    parser.add_argument("--manycore-bin", type=Path, default=None,
                        help="the server binary (default: target/release/manycore, built "
                             "if missing)")
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--ps-mode", choices=["auto", "disable"], default="auto",
                        help="sysbench --db-ps-mode: prepared (auto, checked at re-bind "
                             "only) or text protocol (disable, checked at every statement)")
    parser.add_argument("--tables", type=int, default=None)
    parser.add_argument("--table-size", type=int, default=None)
    parser.add_argument("--time", type=float, default=None)
    parser.add_argument("--warmup", type=float, default=None)
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    quick = args.quick
    data = sysbench.Data(tables=args.tables or (2 if quick else 8),
                         table_size=args.table_size or (10_000 if quick else 100_000))
    seconds = args.time or (5 if quick else 10)
    warmup = args.warmup if args.warmup is not None else (2 if quick else 3)
    repeat = args.repeat or (3 if quick else 5)

    binary = args.manycore_bin or default_binary()
    if not binary.exists():
        repo = Path(__file__).resolve().parent.parent
        print(f"building {binary} ...", flush=True)
        binary = srv.build_manycore(repo, 3600, Path(tempfile.gettempdir()) / "grants-build.log")

    reg = srv.Registry()
    workdir = Path(tempfile.mkdtemp(prefix="manycore-bench-grants-", dir="/var/tmp"))
    try:
        server = srv.start_manycore(reg, binary, workdir)
        port = server.port
        srv.mysql_query(port, "CREATE DATABASE sbtest")
        started = time.monotonic()
        sysbench.prepare(port, data, timeout=1800)
        print(f"sysbench data: {data.tables} x {data.table_size} rows "
              f"({time.monotonic() - started:.0f} s)", flush=True)
        started = time.monotonic()
        create_accounts(port, args.accounts, data.tables)
        rows = srv.mysql_query(port, "SELECT COUNT(*) FROM mysql.tables_priv").strip()
        print(f"{args.accounts} accounts, {rows} table-level grants "
              f"({time.monotonic() - started:.0f} s)", flush=True)
        user = account(args.accounts // 2)
        results: dict[str, list[float]] = {"root": [], user: []}
        for k in range(repeat):
            pair = [("root", ""), (user, USER_PASSWORD)]
            if k % 2:
                pair.reverse()  # Alternate the order, so drifting load hits both alike.
            for who, password in pair:
                qps = run_point_select(port, data, args.threads, args.ps_mode, who, password,
                                       warmup, seconds)
                results[who].append(qps)
                print(f"  run {k + 1}/{repeat} {who:>14}: {qps:10.0f} QPS", flush=True)
        root_qps = statistics.median(results["root"])
        user_qps = statistics.median(results[user])
        print()
        protocol = "prepared" if args.ps_mode == "auto" else "text protocol"
        print(f"oltp_point_select, {protocol}, {args.threads} threads, {data.tables} x "
              f"{data.table_size} rows, median of {repeat} x {seconds:.0f} s")
        print(f"root (global ALL):                       {root_qps:10.0f} QPS")
        print(f"{user} (table grants, 1 of {args.accounts}): {user_qps:10.0f} QPS")
        print(f"ratio user/root: {user_qps / root_qps:.3f} (goal >= 0.97)")
        pairs = [u / r for u, r in zip(results[user], results["root"])]
        print("ratio within each repeat: " + " ".join(f"{p:.3f}" for p in pairs)
              + f" (median {statistics.median(pairs):.3f})")
        return 0
    finally:
        reg.stop_all()


if __name__ == "__main__":
    sys.exit(main())
