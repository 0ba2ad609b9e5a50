"""sysbench 1.0.20 command lines and report parsing.

sysbench 1.0 has no --warmup-time (that came in 1.1). The harness gets the same
effect with report checkpoints: `--report-checkpoints=W,W+T --time=W+T+1` makes
sysbench print a report and reset its counters at W seconds (end of warm-up) and
again at W+T, so the checkpoint report at W+T covers exactly the measured
interval [W, W+T]; the extra second at the end keeps the server busy while the
harness takes its closing sample. `parse_report` picks that report.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from servers import tool


@dataclass(frozen=True)
class Data:
    """The sysbench data set: `tables` tables of `table_size` rows in database sbtest."""

    tables: int
    table_size: int


@dataclass(frozen=True)
class Report:
    qps: float
    tps: float
    p95_ms: float | None
    queries: int
    transactions: int
    errors: int
    seconds: float


def base_args(test: str, port: int, data: Data, threads: int,
              socket: Path | None = None) -> list[str]:
    """Connecting over TCP to `port`, or through the Unix `socket` if given."""
    where = ([f"--mysql-socket={socket}"] if socket
             else ["--mysql-host=127.0.0.1", f"--mysql-port={port}"])
    return [tool("sysbench"), test, "--db-driver=mysql", *where,
            "--mysql-user=root", "--mysql-password=",
            "--mysql-db=sbtest", f"--tables={data.tables}", f"--table-size={data.table_size}",
            f"--threads={threads}", "--rand-type=uniform"]


def run_args(test: str, port: int, data: Data, threads: int, ps_mode: str,
             warmup: float, seconds: float, socket: Path | None = None) -> list[str]:
    """`sysbench TEST run` with checkpoints at the end of warm-up and of the interval.

    Warm-up and interval are whole seconds (sysbench's checkpoints are)."""
    w, t = int(round(warmup)), max(1, int(round(seconds)))
    checkpoints = [str(c) for c in (w, w + t) if c > 0]
    args = base_args(test, port, data, threads, socket) + [
        f"--db-ps-mode={ps_mode}", f"--time={w + t + 1}", "--percentile=95",
        "--forced-shutdown=5", f"--report-checkpoints={','.join(checkpoints)}"]
    return args + ["run"]


def prepare(port: int, data: Data, timeout: float) -> None:
    """Load the data the same way for every MySQL-protocol server."""
    threads = min(data.tables, 4)
    argv = base_args("oltp_read_write", port, data, threads) + ["prepare"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError("sysbench prepare failed: "
                           + (done.stderr.strip() or done.stdout.strip())[-500:])


_NUM = r"([0-9]+(?:\.[0-9]+)?)"


def parse_report(text: str, checkpoint: bool = True) -> Report:
    """The last checkpoint report in sysbench's output (or the final report)."""
    blocks = text.split("SQL statistics:")[1:]
    if not blocks:
        raise ValueError(f"no report in sysbench output: {text[-400:]}")
    # Every block but the last is preceded by its "[ Ns ] Checkpoint report:" line.
    final = blocks[-2] if checkpoint and len(blocks) >= 2 else blocks[-1]

    def grab(pattern: str) -> re.Match[str]:
        found = re.search(pattern, final)
        if not found:
            raise ValueError(f"sysbench output lacks {pattern!r}: {text[-400:]}")
        return found

    tx = grab(r"transactions:\s+(\d+)\s+\(" + _NUM + r" per sec")
    q = grab(r"queries:\s+(\d+)\s+\(" + _NUM + r" per sec")
    err = grab(r"ignored errors:\s+(\d+)")
    secs = grab(r"total time:\s+" + _NUM + "s")
    p95 = re.search(r"95th percentile:\s+" + _NUM, final)
    return Report(qps=float(q.group(2)), tps=float(tx.group(2)),
                  p95_ms=float(p95.group(1)) if p95 else None,
                  queries=int(q.group(1)), transactions=int(tx.group(1)),
                  errors=int(err.group(1)), seconds=float(secs.group(1)))
