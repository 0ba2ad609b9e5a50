#!/usr/bin/env python3
"""Side-by-side benchmark: manycore, MariaDB and Redis on one machine, in one command.

    python3 bench/run.py [--quick] [--out DIR] [--only manycore,mariadb,redis]
                         [--manycore-bin PATH] [--repeat K] [--suite read|durable]

Method
------
Each server is a throwaway instance on loopback, on a free port, with its data
in a temporary directory (under /var/tmp, on disk). MariaDB and manycore get
identical sysbench data (`sysbench oltp_read_write prepare`) and are driven by
the same code: both speak the MySQL protocol. Redis holds the same number of
keys with 120-byte values (the size of sysbench's `c` column) and serves as the
floor for one request/response over TCP.

The read suite measures sysbench oltp_point_select at 1, 8, 64 and 512
threads with prepared statements and with the text protocol, oltp_read_only
and oltp_read_write at 8 threads, "yesmark" (8 `yes "DO 0;" | mariadb`
streams), and redis-benchmark GET at the same client counts (plus -P 16).
The durable suite measures oltp_write_only and oltp_update_index at 8 and 64
threads with a per-commit fsync on both databases, and counts sync calls per
transaction with strace in a separate, shorter pass.

For every measurement the harness samples, around a steady-state interval
after a warm-up, the server's CPU time (utime+stime of the whole process, from
/proc/PID/stat), the client's CPU, and the machine's idle time. Server CPU per
query = CPU delta / queries in the interval. Repeats are interleaved (every
server and workload once, then again) and the report shows medians, so slow
drift on a noisy machine hits every server alike.

Everything the harness starts is stopped by PID at the end, on Ctrl-C and on
errors (try/finally), and dies with the harness if it is killed (PDEATHSIG).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import report  # noqa: E402
import sysbench  # noqa: E402
import servers as srv  # noqa: E402
import workloads  # noqa: E402
from report import Results  # noqa: E402
from workloads import Measurement, StepError  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ALL_SERVERS = ["manycore", "mariadb", "redis"]
POINT_SELECT_THREADS = [1, 8, 64, 512]
DURABLE_THREADS = [8, 64]
VALUE_SIZE = 120  # bytes, like sysbench's c column
SYSBENCH_TESTS = {"point_select/ps": ("oltp_point_select", "auto"),
                  "point_select/text": ("oltp_point_select", "disable"),
                  "read_only": ("oltp_read_only", "auto"),
                  "read_write": ("oltp_read_write", "auto"),
                  "write_only": ("oltp_write_only", "auto"),
                  "update_index": ("oltp_update_index", "auto")}


@dataclass(frozen=True)
class Step:
    server: str
    workload: str
    threads: int
    rep: int


@dataclass(frozen=True)
class Config:
    data: sysbench.Data
    warmup: float
    seconds: float
    repeat: int
    workdir: Path
    transport: str  # "tcp" or "socket": how the measured clients connect


class Progress:
    """One line per step: elapsed time, step number, and an ETA from the steps so far."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.total = 0
        self.done = 0
        self.step_time = 0.0

    def log(self, msg: str) -> None:
        el = int(time.monotonic() - self.t0)
        print(f"[{el // 60:02d}:{el % 60:02d}] {msg}", flush=True)

    def begin(self, total: int) -> None:
        self.total, self.done, self.step_time = total, 0, 0.0

    def step(self, msg: str, guess: float) -> float:
        left = self.total - self.done
        per = self.step_time / self.done if self.done else guess
        eta = int(left * per)
        self.log(f"({self.done + 1}/{self.total}) {msg}  [ETA {eta // 60}m{eta % 60:02d}s]")
        return time.monotonic()

    def finish(self, started: float) -> None:
        self.done += 1
        self.step_time += time.monotonic() - started


# ---------------------------------------------------------------- plans

def read_plan(names: list[str], threads: list[int], repeat: int) -> list[Step]:
    mysql = [s for s in ("manycore", "mariadb") if s in names]
    steps: list[Step] = []
    for rep in range(repeat):
        for t in threads:
            for w in ("point_select/ps", "point_select/text"):
                steps += [Step(s, w, t, rep) for s in mysql]
            if "redis" in names:
                steps += [Step("redis", "redis_get/P1", t, rep),
                          Step("redis", "redis_get/P16", t, rep)]
        for w in ("read_only", "read_write", "yesmark"):
            steps += [Step(s, w, 8, rep) for s in mysql]
    return steps


def durable_plan(names: list[str], repeat: int) -> list[Step]:
    mysql = [s for s in ("manycore", "mariadb") if s in names]
    return [Step(s, w, t, rep) for rep in range(repeat) for w in ("write_only", "update_index")
            for t in DURABLE_THREADS for s in mysql]


def read_rows(threads: list[int]) -> list[tuple[str, int]]:
    rows = [(w, t) for w in ("point_select/ps", "point_select/text") for t in threads]
    rows += [("read_only", 8), ("read_write", 8), ("yesmark", 8)]
    return rows + [("redis_get/P16", t) for t in threads]


# ---------------------------------------------------------------- steps

def run_step(reg: srv.Registry, server: srv.Server, step: Step, cfg: Config) -> Measurement:
    socket = server.socket if cfg.transport == "socket" else None
    if step.workload in SYSBENCH_TESTS:
        test, ps_mode = SYSBENCH_TESTS[step.workload]
        return workloads.sysbench_step(reg, server, test, step.threads, ps_mode, cfg.data,
                                       cfg.warmup, cfg.seconds, socket)
    if step.workload == "yesmark":
        return workloads.yesmark_step(reg, server, step.threads, cfg.workdir, cfg.warmup,
                                      cfg.seconds, socket)
    pipeline = int(step.workload.rsplit("P", 1)[1])
    keys = cfg.data.tables * cfg.data.table_size
    return workloads.redis_step(reg, server, step.threads, pipeline, keys, VALUE_SIZE,
                                cfg.warmup, cfg.seconds, socket)


def run_plan(reg: srv.Registry, running: dict[str, srv.Server], steps: list[Step], cfg: Config,
             res: Results, progress: Progress, deadline: float) -> None:
    progress.begin(len(steps))
    guess = cfg.warmup + cfg.seconds + 2.5
    for step in steps:
        server = running.get(step.server)
        if server is None:
            progress.done += 1
            continue
        if not server.alive():
            res.unavailable[step.server] = f"died during the run ({server.log_tail(3)})"
            running.pop(step.server)
            progress.log(f"{step.server} died: {res.unavailable[step.server]}")
            continue
        if time.monotonic() > deadline:
            progress.log("time limit reached; skipping the remaining steps")
            return
        label = (f"{step.server:8s} {report.LABELS.get(step.workload, step.workload)} "
                 f"threads={step.threads} rep {step.rep + 1}/{cfg.repeat}")
        started = progress.step(label, guess)
        key = (step.workload, step.threads)
        try:
            m = run_step(reg, server, step, cfg)
            res.add(step.server, key, m)
            progress.log(f"    QPS {m.qps:,.0f}  p95 {m.p95_ms if m.p95_ms is not None else '-'} ms"
                         f"  server {m.server_us:.1f} µs/q ({m.server_cores:.2f} cores)"
                         f"  idle {m.idle_pct:.0f}%{'  ' + m.note if m.note else ''}")
        except StepError as exc:
            res.fail(step.server, key, str(exc))
            progress.log(f"    failed: {exc}")
        progress.finish(started)


def strace_passes(reg: srv.Registry, running: dict[str, srv.Server], cfg: Config,
                  res: Results, progress: Progress) -> None:
    seconds = max(3.0, min(cfg.seconds, 8.0))
    for w in ("write_only", "update_index"):
        for t in DURABLE_THREADS:
            for name, server in running.items():
                if not server.alive():
                    continue
                progress.log(f"strace pass: {name} {w} threads={t} ({seconds:.0f}s)")
                out = cfg.workdir / f"strace-{name}-{w}-{t}.txt"
                try:
                    extra = workloads.strace_pass(reg, server, SYSBENCH_TESTS[w][0], t,
                                                  cfg.data, seconds, out)
                except (StepError, ValueError, OSError, subprocess.TimeoutExpired) as exc:
                    progress.log(f"    failed: {exc}")
                    continue
                res.extra.setdefault(name, {})[(w, t)] = extra
                spt = extra["syncs_per_txn"]
                progress.log(f"    {extra['transactions']} transactions, "
                             f"{'-' if spt is None else f'{spt:.3f}'} sync calls per transaction")


# ---------------------------------------------------------------- servers

def start_servers(reg: srv.Registry, names: list[str], args: argparse.Namespace, cfg: Config,
                  res: Results, progress: Progress) -> dict[str, srv.Server]:
    running: dict[str, srv.Server] = {}
    durable = args.suite == "durable"
    if "manycore" in names:
        try:
            running["manycore"] = start_manycore(reg, args, cfg, progress)
        except srv.Unavailable as exc:
            res.unavailable["manycore"] = str(exc)
            progress.log(f"manycore unavailable: {exc}")
    if "mariadb" in names:
        progress.log(f"starting MariaDB ({'durable' if durable else 'in-memory'} settings)")
        try:
            running["mariadb"] = srv.start_mariadb(reg, cfg.workdir, durable=durable)
        except (srv.Unavailable, subprocess.TimeoutExpired) as exc:
            res.unavailable["mariadb"] = str(exc)
            progress.log(f"MariaDB unavailable: {exc}")
    if "redis" in names:
        progress.log("starting Redis")
        try:
            running["redis"] = srv.start_redis(reg, cfg.workdir)
        except (srv.Unavailable, subprocess.TimeoutExpired) as exc:
            res.unavailable["redis"] = str(exc)
            progress.log(f"Redis unavailable: {exc}")
    return running


def start_manycore(reg: srv.Registry, args: argparse.Namespace, cfg: Config,
                   progress: Progress) -> srv.Server:
    if args.manycore_bin:
        binary = Path(args.manycore_bin).resolve()
    else:
        progress.log("building manycore: cargo build --release -p manycore-server")
        binary = srv.build_manycore(REPO, args.build_timeout, cfg.workdir / "cargo-build.log")
    extra = shlex.split(args.manycore_args)
    progress.log(f"starting manycore: {binary} serve {' '.join(extra)}".rstrip())
    return srv.start_manycore(reg, binary, cfg.workdir, extra)


def load_data(reg: srv.Registry, running: dict[str, srv.Server], cfg: Config, res: Results,
              progress: Progress) -> None:
    for name in [n for n in ("manycore", "mariadb") if n in running]:
        server = running[name]
        progress.log(f"loading sysbench data into {name}: {cfg.data.tables} tables x "
                     f"{cfg.data.table_size} rows")
        try:
            srv.mysql_query(server.port, "CREATE DATABASE IF NOT EXISTS sbtest")
            sysbench.prepare(server.port, cfg.data, timeout=1200)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            res.unavailable[name] = f"data load failed: {str(exc)[:300]}"
            progress.log(f"{name} unavailable: {res.unavailable[name]}")
            reg.stop(running.pop(name).proc)
    if "redis" in running:
        keys = cfg.data.tables * cfg.data.table_size
        progress.log(f"loading {keys} keys of {VALUE_SIZE} bytes into Redis")
        try:
            srv.redis_load(running["redis"].port, keys, VALUE_SIZE)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            res.unavailable["redis"] = f"data load failed: {exc}"
            reg.stop(running.pop("redis").proc)


# ---------------------------------------------------------------- environment

def raise_fd_limit() -> None:
    """512 client connections plus the server's own files need more than 1024 fds."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
    if soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(want, hard)
                                                        if hard != resource.RLIM_INFINITY
                                                        else hard))
        except (ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _first_line(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError, FileNotFoundError):
        return "unknown"


def machine_info() -> dict[str, str]:
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    return {"cpus": str(os.cpu_count()), "cpu_model": model,
            "memory_gib": f"{mem_kib / 2**20:.1f}", "kernel": platform.release()}


def versions(binary: str | None) -> dict[str, str]:
    def v(name: str, *flags: str) -> str:
        try:
            return _first_line([srv.tool(name), *flags])
        except FileNotFoundError:
            return "missing"
    rev = _first_line(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    return {"mariadbd": v("mariadbd", "--version"), "sysbench": v("sysbench", "--version"),
            "redis-server": v("redis-server", "--version"), "manycore_git": rev,
            "manycore_bin": binary or "target/release/manycore"}


def fs_type(path: Path) -> str:
    best, kind = "", "unknown"
    with open("/proc/mounts") as f:
        for line in f:
            _, mnt, fstype = line.split()[:3]
            if str(path).startswith(mnt) and len(mnt) > len(best):
                best, kind = mnt, fstype
    return kind


# ---------------------------------------------------------------- output

def write_outputs(out: Path, res: Results, names: list[str], args: argparse.Namespace,
                  cfg: Config, meta: dict, progress: Progress, interrupted: bool) -> str:
    out.mkdir(parents=True, exist_ok=True)
    if args.suite == "durable":
        rows = [(w, t) for w in ("write_only", "update_index") for t in DURABLE_THREADS]
        table = report.durable_table(res, rows, [n for n in names if n != "redis"])
    else:
        table = report.main_table(res, read_rows(POINT_SELECT_THREADS), names)
    md = [f"# manycore side-by-side benchmark ({args.suite} suite"
          f"{', quick' if args.quick else ''})", "",
          f"{meta['date']} · {meta['machine']['cpus']} CPUs ({meta['machine']['cpu_model']}), "
          f"{meta['machine']['memory_gib']} GiB · {cfg.data.tables} tables x "
          f"{cfg.data.table_size} rows · {cfg.seconds:g} s per measurement after "
          f"{cfg.warmup:g} s warm-up · medians of {cfg.repeat} · clients over "
          f"{'Unix sockets' if cfg.transport == 'socket' else 'TCP loopback'}"
          f"{pinning(args)}", "",
          *(["**Interrupted: partial results.**", ""] if interrupted else []),
          report.availability(res, names), "", table, "",
          "QPS: sysbench's queries/s (yesmark and Redis: the server's own counter). "
          "µs/q: server CPU (user+system, all threads) per query over the same interval. "
          "Redis GET -P 1 at the same client count is shown beside point_select.", "",
          "## Details (medians)", "", report.detail_table(res), ""]
    text = "\n".join(md)
    (out / "results.md").write_text(text)
    report.write_json(out / "results.json", res, meta)
    if args.suite == "read":
        try:
            report.write_chart(out / "chart.svg", res, POINT_SELECT_THREADS,
                               "oltp_point_select / Redis GET")
            rsvg = shutil.which("rsvg-convert")
            if rsvg:
                subprocess.run([rsvg, "-o", str(out / "chart.png"), str(out / "chart.svg")],
                               timeout=60)
        except (ValueError, ArithmeticError, OSError, subprocess.SubprocessError) as exc:
            progress.log(f"chart not written: {exc!r}")  # the tables above are the result
    progress.log(f"wrote {out}/results.md, results.json"
                 + (", chart.svg" if args.suite == "read" else ""))
    return table


def pinning(args: argparse.Namespace) -> str:
    """How servers and clients were bound to CPUs, for the report's header."""
    def cpus(v: frozenset[int] | None) -> str:
        return ",".join(map(str, sorted(v))) if v else "any"
    if args.server_cpus is None and args.client_cpus is None:
        return ""
    return f" · servers on CPUs {cpus(args.server_cpus)}, clients on {cpus(args.client_cpus)}"


# ---------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="8 x 10k rows, 6 s per measurement, 1 repeat (a few minutes)")
    p.add_argument("--suite", choices=["read", "durable"], default="read")
    p.add_argument("--out", default=None, help="output directory (default bench/out/SUITE-DATE)")
    p.add_argument("--only", default=",".join(ALL_SERVERS),
                   help="comma-separated subset of manycore,mariadb,redis")
    p.add_argument("--manycore-bin", default=None, help="use this binary instead of building")
    p.add_argument("--manycore-args", default="",
                   help="extra arguments for `manycore serve`, e.g. '--sync none'")
    p.add_argument("--repeat", type=int, default=None, help="repeats per measurement (median)")
    p.add_argument("--time", type=float, default=None, help="measured seconds per run")
    p.add_argument("--warmup", type=float, default=None, help="warm-up seconds per run")
    p.add_argument("--tables", type=int, default=8)
    p.add_argument("--table-size", type=int, default=None)
    p.add_argument("--build-timeout", type=float, default=1800)
    p.add_argument("--max-minutes", type=float, default=40,
                   help="stop starting new measurements after this long")
    p.add_argument("--keep", action="store_true", help="keep the temporary data directories")
    p.add_argument("--transport", choices=["tcp", "socket"], default="tcp",
                   help="how the measured clients connect: TCP on 127.0.0.1, or each "
                        "server's Unix socket (setup and status probes always use TCP)")
    p.add_argument("--server-cpus", default=None, metavar="LIST",
                   help="bind the servers to these CPUs (taskset syntax, e.g. 0 or 0-3)")
    p.add_argument("--client-cpus", default=None, metavar="LIST",
                   help="bind sysbench, redis-benchmark and the CLI to these CPUs")
    args = p.parse_args(argv)
    try:
        for name in ("server_cpus", "client_cpus"):
            text = getattr(args, name)
            setattr(args, name, srv.parse_cpu_list(text) if text is not None else None)
    except ValueError as exc:
        p.error(str(exc))
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(args.only) - set(ALL_SERVERS)
    if unknown:
        p.error(f"unknown server(s) in --only: {', '.join(sorted(unknown))}")
    return args


def make_config(args: argparse.Namespace, workdir: Path) -> Config:
    quick = args.quick
    return Config(
        data=sysbench.Data(args.tables, args.table_size or (10_000 if quick else 100_000)),
        warmup=args.warmup if args.warmup is not None else (1.0 if quick else 2.0),
        seconds=args.time if args.time is not None else (6.0 if quick else 8.0),
        repeat=args.repeat if args.repeat is not None else (1 if quick else 3),
        workdir=workdir, transport=args.transport)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    names = [s for s in ALL_SERVERS if s in args.only]
    if args.suite == "durable":
        names = [n for n in names if n != "redis"]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out or REPO / "bench" / "out" / f"{args.suite}-{stamp}").resolve()
    progress = Progress()
    signal.signal(signal.SIGTERM, _sigterm)
    raise_fd_limit()
    srv.ensure_packages(progress.log, extra=["strace"] if args.suite == "durable" else [])
    workdir = Path(tempfile.mkdtemp(prefix="manycore-bench-", dir="/var/tmp"))
    if args.suite == "durable" and fs_type(workdir) in ("tmpfs", "ramfs"):
        progress.log(f"warning: {workdir} is on {fs_type(workdir)}; fsync there costs nothing")
    cfg = make_config(args, workdir)
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "machine": machine_info(), "versions": versions(args.manycore_bin),
            "args": {k: sorted(v) if isinstance(v, frozenset) else v
                     for k, v in vars(args).items()},
            "suite": args.suite,
            "data": {"tables": cfg.data.tables, "table_size": cfg.data.table_size},
            "warmup_s": cfg.warmup, "seconds": cfg.seconds, "repeat": cfg.repeat,
            "mariadb_settings": srv.MARIADB_COMMON + (srv.MARIADB_DURABLE
                                                      if args.suite == "durable"
                                                      else srv.MARIADB_IN_MEMORY),
            "workdir_fs": fs_type(workdir), "transport": cfg.transport}
    progress.log(f"suite={args.suite} servers={','.join(names)} data={cfg.data.tables}x"
                 f"{cfg.data.table_size} time={cfg.seconds:g}s warmup={cfg.warmup:g}s "
                 f"repeat={cfg.repeat} workdir={workdir}")
    res = Results()
    reg = srv.Registry(args.server_cpus, args.client_cpus)
    deadline = time.monotonic() + args.max_minutes * 60
    interrupted = False
    try:
        running = start_servers(reg, names, args, cfg, res, progress)
        load_data(reg, running, cfg, res, progress)
        if args.suite == "durable":
            run_plan(reg, running, durable_plan(list(running), cfg.repeat), cfg, res,
                     progress, deadline)
            strace_passes(reg, running, cfg, res, progress)
        else:
            run_plan(reg, running, read_plan(list(running), POINT_SELECT_THREADS, cfg.repeat),
                     cfg, res, progress, deadline)
    except KeyboardInterrupt:
        interrupted = True
        progress.log("interrupted: stopping servers and writing what was measured")
    finally:
        reg.stop_all()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    meta["interrupted"] = interrupted
    table = write_outputs(out, res, names, args, cfg, meta, progress, interrupted)
    print()
    print(report.availability(res, names))
    print()
    print(table)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
