"""One measurement each: a sysbench run, a yesmark run, a redis-benchmark run.

All three follow the same pattern. The client is started and left to warm up;
then the harness takes a sample (server CPU from /proc/PID/stat, client CPU,
machine busy/idle from /proc/stat, and the server's own query counter), sleeps
for the measured interval, and takes a second sample. Server CPU per query is

    (server utime+stime delta) / (queries in the same interval)

where the queries come from the client's own count over its steady-state
interval (sysbench) or from the server's counter (yesmark: Questions; Redis:
total_commands_processed). The server-side count is recorded for sysbench too,
as a cross-check.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import sysbench
from servers import (Registry, Server, StatusProbe, machine_cpu, mysql_cli, process_cpu,
                     redis_commands, tool)


class StepError(Exception):
    """A measurement could not be made; the message says why."""


@dataclass
class Measurement:
    qps: float
    p95_ms: float | None
    tps: float | None
    server_us: float  # server CPU microseconds per query
    server_user_us: float
    server_sys_us: float
    server_cores: float  # server CPU seconds per wall second
    client_cores: float
    idle_pct: float  # machine idle over the interval, % of all CPUs
    counted_qps: float | None  # from the server's own counter
    window_s: float
    errors: int = 0
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Sample:
    t: float
    user: float
    system: float
    clients: float
    busy: float
    idle: float
    counter: int | None


def take_sample(server: Server, client_pids: list[int],
                counter: Callable[[], int | None]) -> Sample:
    t = time.monotonic()
    cpu = server.cpu()
    busy, idle = machine_cpu()
    clients = 0.0
    for pid in client_pids:
        try:
            clients += process_cpu(pid).total
        except (FileNotFoundError, ProcessLookupError):
            pass
    return Sample(t, cpu.user, cpu.system, clients, busy, idle, counter())


def summarize(s0: Sample, s1: Sample, queries: float, qps: float, p95: float | None,
              tps: float | None, errors: int = 0, note: str = "") -> Measurement:
    wall = s1.t - s0.t
    if queries <= 0:
        raise StepError("no queries completed in the measured interval")
    user, system = s1.user - s0.user, s1.system - s0.system
    counted = (s1.counter - s0.counter) / wall if None not in (s0.counter, s1.counter) else None
    total = (s1.busy - s0.busy) + (s1.idle - s0.idle)
    return Measurement(
        qps=qps, p95_ms=p95, tps=tps,
        server_us=(user + system) / queries * 1e6,
        server_user_us=user / queries * 1e6, server_sys_us=system / queries * 1e6,
        server_cores=(user + system) / wall,
        # A client that exited before the second sample no longer shows its CPU.
        client_cores=max(0.0, s1.clients - s0.clients) / wall,
        idle_pct=100.0 * (s1.idle - s0.idle) / total if total > 0 else 0.0,
        counted_qps=counted, window_s=wall, errors=errors, note=note)


class OutputReader(threading.Thread):
    """Collects a child's text output and signals when a marker line appears."""

    def __init__(self, proc: subprocess.Popen, marker: str) -> None:
        super().__init__(daemon=True)
        self.proc, self.marker = proc, marker
        self.lines: list[str] = []
        self.seen = threading.Event()
        self.start()

    def run(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            if self.marker in line:
                self.seen.set()

    @property
    def text(self) -> str:
        return "".join(self.lines)


def _sleep_while_alive(seconds: float, procs: list[subprocess.Popen], what: str,
                       detail: Callable[[], str]) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        for p in procs:
            if p.poll() is not None:
                raise StepError(f"{what} exited early (code {p.returncode}): {detail()}")
        time.sleep(min(left, 0.2))


def questions(probe: StatusProbe) -> Callable[[], int | None]:
    return lambda: probe.status("Questions")


# ---------------------------------------------------------------- sysbench

def sysbench_step(reg: Registry, server: Server, test: str, threads: int, ps_mode: str,
                  data: sysbench.Data, warmup: float, seconds: float,
                  socket: Path | None) -> Measurement:
    """`socket`: the measured client connects through it, not over TCP."""
    argv = sysbench.run_args(test, server.port, data, threads, ps_mode, warmup, seconds,
                             socket)
    probe = StatusProbe(reg, server.port)
    count = questions(probe)
    count()  # connect now, outside the measured interval
    proc = reg.spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = OutputReader(proc, "Threads started!")
    tail = lambda: out.text.strip()[-300:]  # noqa: E731
    try:
        if not out.seen.wait(timeout=60):
            raise StepError(f"sysbench did not start: {tail()}")
        # Deadlines from the start, so a slow sample (the CLI query for Questions
        # can take a while on a loaded machine) shortens the window, not shifts it.
        start = time.monotonic()
        _sleep_while_alive(round(warmup) + 0.3, [proc], "sysbench", tail)
        s0 = take_sample(server, [proc.pid], count)
        end = start + round(warmup) + round(seconds) - 0.2
        if end - s0.t < 0.25 * seconds:
            raise StepError(f"first sample came {s0.t - start:.1f}s after start, too late for"
                            f" a {seconds:g}s interval; the machine is overloaded")
        _sleep_while_alive(end - time.monotonic(), [proc], "sysbench", tail)
        s1 = take_sample(server, [proc.pid], count)
        proc.wait(timeout=seconds + warmup + 30)
    except subprocess.TimeoutExpired as exc:
        raise StepError("sysbench did not finish in time") from exc
    finally:
        reg.kill(proc)
        probe.close()
        out.join(timeout=5)
    if proc.returncode != 0:
        raise StepError(f"sysbench exited {proc.returncode}: {tail()}")
    try:
        rep = sysbench.parse_report(out.text)
    except ValueError as exc:
        raise StepError(str(exc)) from exc
    return summarize(s0, s1, queries=rep.qps * (s1.t - s0.t), qps=rep.qps, p95=rep.p95_ms,
                     tps=rep.tps, errors=rep.errors)


# ---------------------------------------------------------------- yesmark

def yesmark_step(reg: Registry, server: Server, streams: int, workdir: Path,
                 warmup: float, seconds: float, socket: Path | None) -> Measurement:
    """N `yes "DO 0;" | mariadb` streams; throughput from the server's Questions counter."""
    procs: list[subprocess.Popen] = []
    errs = [workdir / f"yesmark-{server.name}-{i}.err" for i in range(streams)]
    probe = StatusProbe(reg, server.port)
    count = questions(probe)
    count()  # connect now, outside the measured interval
    try:
        for err in errs:
            yes = reg.spawn([tool("yes"), "DO 0;"], stdout=subprocess.PIPE)
            # --skip-ssl: manycore always offers TLS and the CLI takes it, while the
            # throwaway MariaDB has no certificate; plaintext on both is like for like
            # (TLS cost the CLI ~2.6 us of user CPU per statement against manycore).
            cli = reg.spawn([*mysql_cli(server.port, socket=socket), "--skip-ssl"],
                            stdin=yes.stdout,
                            stderr=open(err, "w"))
            assert yes.stdout is not None
            yes.stdout.close()  # the CLI owns the pipe now; yes gets SIGPIPE if it dies
            procs += [yes, cli]
        detail = lambda: " | ".join(e.read_text(errors="replace").strip()  # noqa: E731
                                    for e in errs)[-300:]
        pids = [p.pid for p in procs]
        _sleep_while_alive(warmup, procs, "a yesmark stream", detail)
        s0 = take_sample(server, pids, count)
        _sleep_while_alive(seconds, procs, "a yesmark stream", detail)
        s1 = take_sample(server, pids, count)
    finally:
        for p in procs:
            reg.kill(p)
        probe.close()
    if s0.counter is None or s1.counter is None:
        raise StepError("server does not report SHOW GLOBAL STATUS LIKE 'Questions'")
    queries = s1.counter - s0.counter - 2  # minus the probe's SHOW STATUS and sentinel
    return summarize(s0, s1, queries=queries, qps=queries / (s1.t - s0.t), p95=None, tps=None)


# ---------------------------------------------------------------- redis

def _redis_rate(reg: Registry, server: Server, argv: list[str], seconds: float) -> float:
    """Warm up, and learn the request rate so the measured run can be sized by -n."""
    proc = reg.spawn(argv + ["-n", "2000000000"])
    try:
        time.sleep(0.3)
        c0, t0 = redis_commands(server.port), time.monotonic()
        time.sleep(max(seconds, 1.0))
        c1, t1 = redis_commands(server.port), time.monotonic()
    finally:
        reg.kill(proc)
    if c0 is None or c1 is None or c1 <= c0:
        raise StepError("redis-benchmark made no progress during warm-up")
    return (c1 - c0) / (t1 - t0)


def redis_step(reg: Registry, server: Server, clients: int, pipeline: int, keys: int,
               value_size: int, warmup: float, seconds: float,
               socket: Path | None) -> Measurement:
    where = ["-s", str(socket)] if socket else ["-h", "127.0.0.1", "-p", str(server.port)]
    argv = [tool("redis-benchmark"), *where, "-t", "get", "-c", str(clients), "-P", str(pipeline), "-r", str(keys), "-d", str(value_size),
            "--csv"]
    rate = _redis_rate(reg, server, argv, warmup)
    requests = int(rate * (seconds + 1.5) * 1.6)  # rates swing on a busy VM; finish late, not early
    proc = reg.spawn(argv + ["-n", str(requests)], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
    out = OutputReader(proc, '"GET"')
    counter = lambda: redis_commands(server.port)  # noqa: E731
    note = ""
    try:
        time.sleep(0.5)
        s0 = take_sample(server, [proc.pid], counter)
        time.sleep(seconds)
        if proc.poll() is not None:
            note = "redis-benchmark finished before the interval ended"
        s1 = take_sample(server, [proc.pid], counter)
        proc.wait(timeout=3 * seconds + 10)
    except subprocess.TimeoutExpired:
        note = "redis-benchmark killed after the interval (no latency summary)"
    finally:
        reg.kill(proc)
        out.join(timeout=5)
    if s0.counter is None or s1.counter is None:
        raise StepError("redis INFO stats unavailable")
    queries = s1.counter - s0.counter - 1
    wall = s1.t - s0.t
    rps, p95 = _parse_redis_csv(out.text)
    qps = rps if note.startswith("redis-benchmark finished") and rps else queries / wall
    return summarize(s0, s1, queries=queries, qps=qps, p95=p95, tps=None, note=note)


def _parse_redis_csv(text: str) -> tuple[float | None, float | None]:
    """rps and p95 from redis-benchmark --csv (Redis 7 prints both)."""
    header: list[str] | None = None
    for line in text.splitlines():
        cells = [c.strip('"') for c in line.strip().split(",")]
        if cells and cells[0] == "test":
            header = cells
        elif header and cells and cells[0] == "GET" and len(cells) == len(header):
            row = dict(zip(header, cells))
            p95 = row.get("p95_latency_ms")
            return float(row["rps"]), float(p95) if p95 else None
    return None, None


# ---------------------------------------------------------------- fsync counting

SYNC_CALLS = ("fsync", "fdatasync", "sync_file_range", "msync")
WRITE_CALLS = ("pwrite64", "pwritev", "pwritev2", "write", "writev", "io_submit",
               "io_uring_enter")


def strace_pass(reg: Registry, server: Server, test: str, threads: int, data: sysbench.Data,
                seconds: float, out_file: Path) -> dict:
    """A short run with `strace -f -c` attached to the server: sync calls per transaction.

    strace slows the server a lot, so this pass only counts calls; throughput
    comes from the clean pass."""
    calls = ",".join(SYNC_CALLS + WRITE_CALLS)
    st = reg.spawn([tool("strace"), "-f", "-c", "-e", f"trace={calls}", "-o", str(out_file),
                    "-p", str(server.pid)], stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)  # attach to every thread
        if st.poll() is not None:
            raise StepError(f"strace failed: {st.stderr.read().strip()[-200:] if st.stderr else ''}")
        argv = sysbench.base_args(test, server.port, data, threads) + [
            f"--time={int(seconds)}", "--db-ps-mode=auto", "run"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
        if done.returncode != 0:
            raise StepError(f"sysbench under strace exited {done.returncode}: "
                            f"{done.stdout.strip()[-300:]}")
        rep = sysbench.parse_report(done.stdout, checkpoint=False)
    finally:
        if st.poll() is None:
            st.send_signal(signal.SIGINT)  # strace prints its -c summary on detach
            try:
                st.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        reg.kill(st)
    counts = _parse_strace_summary(out_file.read_text(errors="replace"))
    syncs = sum(counts.get(c, 0) for c in SYNC_CALLS)
    return {"transactions": rep.transactions, "tps_under_strace": rep.tps, "calls": counts,
            "syncs_per_txn": syncs / rep.transactions if rep.transactions else None}


def _parse_strace_summary(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in text.splitlines():
        cells = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(cells) >= 5 and cells[-1] != "total" and cells[3].isdigit():
            counts[cells[-1]] = int(cells[3])
    return counts
