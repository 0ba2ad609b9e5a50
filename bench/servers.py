"""Throwaway servers for the benchmark: install, build, start, query, sample, stop.

Every process the harness starts goes through `spawn`, which
  * puts it in its own session (Ctrl-C in the terminal reaches only the harness,
    which then stops everything in order), and
  * asks the kernel to SIGKILL it if the harness itself dies (PR_SET_PDEATHSIG),
    so no server outlives the harness even after `kill -9`.
`Registry.stop_all` stops whatever is still running, by PID, newest first.
"""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Sequence

CLK_TCK = os.sysconf("SC_CLK_TCK")
PR_SET_PDEATHSIG = 1

APT_PACKAGES = ["mariadb-server", "mariadb-client", "sysbench", "redis-server", "redis-tools"]
REQUIRED_TOOLS = ["mariadbd", "mariadb", "mariadb-install-db", "sysbench",
                  "redis-server", "redis-benchmark", "redis-cli"]

# MariaDB settings for the read suite: everything in the buffer pool, no binary
# log, no flush at commit (the closest MariaDB gets to an in-memory database).
MARIADB_COMMON = [
    "--skip-log-bin",
    "--innodb-buffer-pool-size=2G",
    "--innodb-log-file-size=512M",
    "--max-connections=1000",
    "--max-prepared-stmt-count=1048576",
    "--skip-name-resolve",
    "--performance-schema=OFF",
]
MARIADB_IN_MEMORY = ["--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0"]
# Durable suite: fsync of the redo log at every commit, binary log off (so
# sync_binlog does not apply), doublewrite on (the default).
MARIADB_DURABLE = ["--innodb-flush-log-at-trx-commit=1", "--innodb-doublewrite=1",
                   "--innodb-flush-method=O_DIRECT"]


class Unavailable(Exception):
    """A server could not be built or started; str(exc) is the reason shown in the report."""


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def parse_cpu_list(text: str) -> frozenset[int]:
    """A CPU list as taskset and /sys write it ("0", "0-3", "0,2-3"), checked against the
    CPUs this process may run on."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise ValueError(f"not a CPU list: {text!r}")
        cpus.update(range(int(first), int(last or first) + 1))
    allowed = os.sched_getaffinity(0)
    if not cpus or not cpus <= allowed:
        raise ValueError(f"CPUs {text!r} are not all among the allowed {sorted(allowed)}")
    return frozenset(cpus)


class Registry:
    """Every child process the harness starts, so that all can be stopped by PID.

    With `server_cpus` / `client_cpus`, servers and clients (sysbench, redis-benchmark, the
    CLI) are bound to those CPUs, so that the client's work does not share the server's
    cores. The servers size their thread pools from the CPUs they may use (manycore: one
    worker per CPU of its affinity mask)."""

    def __init__(self, server_cpus: frozenset[int] | None = None,
                 client_cpus: frozenset[int] | None = None) -> None:
        self._procs: list[subprocess.Popen] = []
        self.server_cpus = server_cpus
        self.client_cpus = client_cpus

    def spawn(self, argv: Sequence[str], *, stdin: int | IO | None = subprocess.DEVNULL,
              stdout: int | IO | None = subprocess.DEVNULL,
              stderr: int | IO | None = subprocess.STDOUT, text: bool = False,
              cwd: str | None = None, server: bool = False) -> subprocess.Popen:
        cpus = self.server_cpus if server else self.client_cpus

        def child_setup() -> None:
            _die_with_parent()
            if cpus:
                os.sched_setaffinity(0, cpus)

        proc = subprocess.Popen(list(argv), stdin=stdin, stdout=stdout, stderr=stderr,
                                text=text, cwd=cwd, start_new_session=True,
                                preexec_fn=child_setup)
        self._procs.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen, grace: float = 10.0) -> None:
        """SIGTERM, wait up to `grace` seconds, then SIGKILL; by PID only."""
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        if proc in self._procs:
            self._procs.remove(proc)

    def kill(self, proc: subprocess.Popen) -> None:
        self.stop(proc, grace=0.0)

    def stop_all(self) -> None:
        for proc in reversed(list(self._procs)):
            self.stop(proc)


@dataclass(frozen=True)
class CpuTimes:
    """CPU seconds a process (all its threads) has used so far."""

    user: float
    system: float

    @property
    def total(self) -> float:
        return self.user + self.system


def process_cpu(pid: int) -> CpuTimes:
    """utime and stime from /proc/PID/stat; they already include all threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return CpuTimes(user=int(fields[11]) / CLK_TCK, system=int(fields[12]) / CLK_TCK)


def machine_cpu() -> tuple[float, float]:
    """(busy, idle) seconds summed over all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    busy = sum(values[:8]) - idle  # user..steal; guest time is already in user
    return busy / CLK_TCK, idle / CLK_TCK


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tool(name: str) -> str:
    """Absolute path of a program, also looking in sbin directories."""
    found = shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if not found:
        raise FileNotFoundError(name)
    return found


def ensure_packages(log: Callable[[str], None], extra: Sequence[str] = ()) -> None:
    """apt-get install the tools if any is missing (needs root on Debian/Ubuntu)."""
    missing = [t for t in [*REQUIRED_TOOLS, *extra] if not _have(t)]
    if not missing:
        return
    log(f"missing {', '.join(missing)}: installing {' '.join(APT_PACKAGES)} with apt-get")
    packages = [*APT_PACKAGES, *(["strace"] if "strace" in missing else [])]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if subprocess.run(cmd, env=env, timeout=900).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, timeout=600, check=True)
        subprocess.run(cmd, env=env, timeout=900, check=True)


def _have(name: str) -> bool:
    try:
        tool(name)
        return True
    except FileNotFoundError:
        return False


@dataclass
class Server:
    """A running server: name ("manycore", "mariadb", "redis"), protocol, port, process."""

    name: str
    protocol: str  # "mysql" or "redis"
    port: int
    proc: subprocess.Popen
    log: Path
    socket: Path  # the Unix socket it also listens on (clients use it with --transport socket)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def cpu(self) -> CpuTimes:
        return process_cpu(self.pid)

    def log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(text[-lines:])


# ---------------------------------------------------------------- MySQL protocol

def mysql_cli(port: int, db: str | None = None, socket: Path | None = None) -> list[str]:
    """The `mariadb` CLI as root over TCP to `port`, or through `socket` if given."""
    where = ([f"--protocol=SOCKET", f"--socket={socket}"] if socket
             else ["--protocol=TCP", "-h127.0.0.1", f"-P{port}"])
    argv = [tool("mariadb"), *where, "-uroot", "--batch", "--skip-column-names",
            "--connect-timeout=10"]
    return argv + ([db] if db else [])


def mysql_query(port: int, sql: str, timeout: float = 60.0) -> str:
    """Run SQL through the `mariadb` CLI; raise RuntimeError with its message on failure."""
    try:
        done = subprocess.run([*mysql_cli(port), "-e", sql], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"`{sql}` timed out after {timeout:.0f}s") from exc
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"mariadb exited {done.returncode}")
    return done.stdout


class StatusProbe:
    """One long-lived `mariadb` CLI session for reading status counters.

    Spawning the CLI and connecting for every sample can take a second on a
    loaded machine; a kept-open session answers in about a millisecond. Each
    request ends with a sentinel SELECT so an empty answer cannot hang it, and
    reads give up after `timeout` seconds."""

    SENTINEL = "#probe-end"

    def __init__(self, reg: Registry, port: int, timeout: float = 10.0) -> None:
        self.reg, self.port, self.timeout = reg, port, timeout
        self.proc: subprocess.Popen | None = None
        self.buf = b""

    def _open(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self.reg.spawn([*mysql_cli(self.port), "--unbuffered"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
            self.buf = b""
        return self.proc

    def _reply(self, proc: subprocess.Popen) -> list[str] | None:
        """Lines up to the sentinel, or None on timeout / EOF."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        marker = self.SENTINEL.encode() + b"\n"
        while marker not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buf += chunk
        reply, self.buf = self.buf.split(marker, 1)
        return reply.decode(errors="replace").splitlines()

    def status(self, variable: str) -> int | None:
        """SHOW GLOBAL STATUS LIKE 'variable'; None if the server cannot say."""
        proc = self._open()
        assert proc.stdin is not None
        try:
            proc.stdin.write(f"SHOW GLOBAL STATUS LIKE '{variable}'; "
                             f"SELECT '{self.SENTINEL}';\n".encode())
            proc.stdin.flush()
            lines = self._reply(proc)
        except (BrokenPipeError, OSError):
            lines = None
        if lines is None:
            self.close()  # start afresh next time rather than read out of step
            return None
        for line in lines:
            parts = line.split("\t")
            if len(parts) == 2 and parts[0].lower() == variable.lower() and parts[1].isdigit():
                return int(parts[1])
        return None

    def close(self) -> None:
        if self.proc is not None:
            self.reg.stop(self.proc, grace=2.0)
            self.proc = None


def wait_until(check: Callable[[], bool], proc: subprocess.Popen, timeout: float,
               what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Unavailable(f"{what} exited with code {proc.returncode} before it was ready"
                              f" ({_tail(log)})")
        if check():
            return
        time.sleep(0.2)
    raise Unavailable(f"{what} not ready after {timeout:.0f}s ({_tail(log)})")


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return " | ".join(line.strip() for line in text[-lines:]) or "empty log"


def _mysql_ready(port: int) -> Callable[[], bool]:
    def check() -> bool:
        try:
            mysql_query(port, "SELECT 1", timeout=10)
            return True
        except RuntimeError:
            return False
    return check


def mariadbd_argv(workdir: Path, port: int, durable: bool) -> list[str]:
    """`mariadbd` on WORKDIR/mariadb-data (made by `start_mariadb`)."""
    settings = MARIADB_COMMON + (MARIADB_DURABLE if durable else MARIADB_IN_MEMORY)
    return [tool("mariadbd"), "--no-defaults", f"--datadir={workdir / 'mariadb-data'}",
            f"--port={port}", "--bind-address=127.0.0.1", f"--socket={workdir / 'mariadb.sock'}",
            f"--pid-file={workdir / 'mariadb.pid'}", "--user=root", *settings]


def start_mariadb(reg: Registry, workdir: Path, durable: bool = False) -> Server:
    datadir = workdir / "mariadb-data"
    log = workdir / "mariadb.log"
    datadir.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        done = subprocess.run(
            [tool("mariadb-install-db"), "--no-defaults", f"--datadir={datadir}", "--user=root",
             "--auth-root-authentication-method=normal", "--skip-test-db"],
            stdout=out, stderr=subprocess.STDOUT, timeout=180)
    if done.returncode != 0:
        raise Unavailable(f"mariadb-install-db failed ({_tail(log)})")
    port = free_port()
    proc = reg.spawn(mariadbd_argv(workdir, port, durable), stdout=open(log, "a"), server=True)
    wait_until(_mysql_ready(port), proc, 120, "mariadbd", log)
    return Server("mariadb", "mysql", port, proc, log, workdir / "mariadb.sock")


def build_manycore(repo: Path, timeout: float, log_path: Path) -> Path:
    """`cargo build --release -p manycore-server`; returns target/release/manycore."""
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo/bin/cargo")
    if not Path(cargo).exists():
        raise Unavailable("cargo not found")
    try:
        with open(log_path, "w") as out:
            done = subprocess.run([cargo, "build", "--release", "-p", "manycore-server"],
                                  cwd=repo, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"cargo build timed out after {timeout:.0f}s") from exc
    if done.returncode != 0:
        errors = [l for l in log_path.read_text(errors="replace").splitlines()
                  if l.startswith("error")]
        raise Unavailable(f"cargo build failed: {errors[0] if errors else _tail(log_path)}")
    binary = repo / "target" / "release" / "manycore"
    if not binary.exists():
        raise Unavailable(f"build succeeded but {binary} is missing")
    return binary


def manycore_argv(binary: Path, workdir: Path, port: int,
                  extra_args: Sequence[str] = ()) -> list[str]:
    """`manycore serve` on WORKDIR/manycore-data."""
    return [str(binary), "serve", "--listen", f"127.0.0.1:{port}",
            "--data-dir", str(workdir / "manycore-data"), *extra_args]


def start_manycore(reg: Registry, binary: Path, workdir: Path,
                   extra_args: Sequence[str] = ()) -> Server:
    if not binary.exists():
        raise Unavailable(f"{binary} does not exist")
    port = free_port()
    log = workdir / "manycore.log"
    socket = workdir / "manycore.sock"
    argv = manycore_argv(binary, workdir, port, [*extra_args, "--socket", str(socket)])
    proc = reg.spawn(argv, stdout=open(log, "w"), server=True)
    try:
        wait_until(_mysql_ready(port), proc, 60, "manycore", log)
    except Unavailable:
        reg.stop(proc)
        raise
    return Server("manycore", "mysql", port, proc, log, socket)


# ---------------------------------------------------------------- Redis

def redis_cli(port: int) -> list[str]:
    return [tool("redis-cli"), "-h", "127.0.0.1", "-p", str(port)]


def redis_commands(port: int) -> int | None:
    """total_commands_processed from INFO stats."""
    try:
        out = subprocess.run([*redis_cli(port), "INFO", "stats"], capture_output=True,
                             text=True, timeout=20).stdout
    except subprocess.TimeoutExpired:
        return None
    for line in out.splitlines():
        if line.startswith("total_commands_processed:"):
            return int(line.split(":", 1)[1])
    return None


def start_redis(reg: Registry, workdir: Path) -> Server:
    port = free_port()
    log = workdir / "redis.log"
    workdir.mkdir(parents=True, exist_ok=True)
    socket = workdir / "redis.sock"
    argv = [tool("redis-server"), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(workdir), "--daemonize", "no",
            "--unixsocket", str(socket), "--unixsocketperm", "700"]
    proc = reg.spawn(argv, stdout=open(log, "w"), server=True)

    def ready() -> bool:
        return subprocess.run([*redis_cli(port), "PING"], capture_output=True, text=True,
                              timeout=10).stdout.strip() == "PONG"

    wait_until(ready, proc, 30, "redis-server", log)
    return Server("redis", "redis", port, proc, log, socket)


def redis_load(port: int, keys: int, value_size: int) -> None:
    """SET key:%012d for every key redis-benchmark -r `keys` can ask for."""
    value = b"x" * value_size
    chunks = []
    for i in range(keys):
        key = b"key:%012d" % i
        chunks.append(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n"
                      % (len(key), key, len(value), value))
    done = subprocess.run([*redis_cli(port), "--pipe"], input=b"".join(chunks),
                          capture_output=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"redis-cli --pipe failed: {done.stderr.decode(errors='replace')}")
