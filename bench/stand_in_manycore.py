#!/usr/bin/env python3
"""A stand-in for `manycore serve`: MariaDB behind manycore's command line.

For testing the harness before the real server exists, and as an A/A check of
the harness's noise: with this as --manycore-bin, every manycore/MariaDB ratio
should be 1.0 up to the machine's noise.

    python3 bench/run.py --quick --manycore-bin bench/stand_in_manycore.py

It accepts `serve --listen HOST:PORT --data-dir DIR [--sync MODE] [--socket PATH]`,
initialises a
MariaDB data directory in DIR, and exec()s mariadbd with the harness's
in-memory settings, so the process the harness samples is mariadbd itself.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import servers  # noqa: E402


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["serve"])
    p.add_argument("--listen", required=True)
    p.add_argument("--data-dir", required=True)
    p.add_argument("--sync", default="commit")
    p.add_argument("--socket", default=None)
    args = p.parse_args(argv)
    host, port = args.listen.rsplit(":", 1)
    datadir = Path(args.data_dir).resolve()
    socket = args.socket or f"{datadir}/stand-in.sock"
    if not (datadir / "mysql").exists():
        subprocess.run([servers.tool("mariadb-install-db"), "--no-defaults",
                        f"--datadir={datadir}", "--user=root",
                        "--auth-root-authentication-method=normal", "--skip-test-db"],
                       stdout=subprocess.DEVNULL, check=True, timeout=180)
    durable = servers.MARIADB_DURABLE if args.sync == "commit" else servers.MARIADB_IN_MEMORY
    mariadbd = servers.tool("mariadbd")
    os.execv(mariadbd, [mariadbd, "--no-defaults", f"--datadir={datadir}", f"--port={port}",
                        f"--bind-address={host}", f"--socket={socket}",
                        "--user=root", *servers.MARIADB_COMMON, *durable])
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
