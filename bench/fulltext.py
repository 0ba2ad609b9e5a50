#!/usr/bin/env python3
"""MATCH ... AGAINST side by side: manycore and MariaDB with the same rows, one run.

manycore builds no word index yet: each statement reads the MATCH's whole table once for
its statistics (`crates/sql/src/expr/fulltext.rs`), so a search costs a full scan and
grows with the table. MariaDB reads InnoDB's FULLTEXT index. This measures that gap, for
the step that builds the index.

Each server gets a table `docs (id, body TEXT, FULLTEXT (body))` of ROWS rows, each 12
words drawn by a seeded generator from a 5,000-word vocabulary (the same rows in both).
Then one `mariadb` CLI connection runs QUERIES searches, each for one vocabulary word:
`SELECT id, MATCH (body) AGAINST ('w') AS score FROM docs WHERE MATCH (body) AGAINST ('w')
LIMIT 10`. The rows each server returns (ids, in order) are compared, and the wall time
and the server's CPU time (from /proc) per search are printed. Scores are compared too,
but a difference there is reported, not failed on: InnoDB's idf divides by its row-count
estimate (`stat_n_rows`), which its background statistics can leave a row or so off the
true count on a large table, moving the last digits of every score.

    python3 bench/fulltext.py --manycore-bin target/release/manycore [--rows 20000]
        [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import servers as srv  # noqa: E402

VOCABULARY = 5000
WORDS_PER_ROW = 12
SEED = 20261208


def word(i: int) -> str:
    """Vocabulary word `i`: five letters (never a stopword)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    n = i + 26 ** 4
    while n:
        n, r = divmod(n, 26)
        out += letters[r]
    return out


def load_sql(rows: int) -> str:
    rng = random.Random(SEED)
    lines = ["CREATE DATABASE IF NOT EXISTS ft; USE ft; DROP TABLE IF EXISTS docs;",
             "CREATE TABLE docs (id INT PRIMARY KEY, body TEXT, FULLTEXT (body));"]
    batch = []
    for i in range(1, rows + 1):
        # Skewed: low-numbered words are common, as in text.
        body = " ".join(word(int(rng.paretovariate(1.2)) % VOCABULARY)
                        for _ in range(WORDS_PER_ROW))
        batch.append(f"({i}, '{body}')")
        if len(batch) == 500 or i == rows:
            lines.append("INSERT INTO docs VALUES " + ", ".join(batch) + ";")
            batch = []
    return "\n".join(lines) + "\n"


def searches(queries: int) -> str:
    rng = random.Random(SEED + 1)
    out = ["USE ft;"]
    for _ in range(queries):
        w = word(rng.randrange(1, 200))
        out.append(f"SELECT id, MATCH (body) AGAINST ('{w}') AS score FROM docs "
                   f"WHERE MATCH (body) AGAINST ('{w}') LIMIT 10;")
    return "\n".join(out) + "\n"


def run_cli(server: srv.Server, sql: str, timeout: float) -> str:
    done = subprocess.run(srv.mysql_cli(server.port), input=sql, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{server.name}: {done.stderr.strip()}")
    return done.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manycore-bin", type=Path, required=True)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    reg = srv.Registry()
    results = {}
    answers = {}
    try:
        with tempfile.TemporaryDirectory(prefix="manycore-fulltext-") as tmp:
            workdir = Path(tmp)
            servers = [srv.start_manycore(reg, args.manycore_bin.resolve(), workdir),
                       srv.start_mariadb(reg, workdir)]
            load = load_sql(args.rows)
            search = searches(args.queries)
            for server in servers:
                print(f"{server.name}: loading {args.rows} rows", flush=True)
                run_cli(server, load, timeout=1800)
                run_cli(server, searches(5), timeout=1800)  # warm-up
                before = server.cpu()
                start = time.monotonic()
                answers[server.name] = run_cli(server, search, timeout=3600)
                wall = time.monotonic() - start
                after = server.cpu()
                cpu = after.total - before.total
                results[server.name] = (wall, cpu)
                print(f"{server.name}: {args.queries} searches in {wall:.2f} s", flush=True)
    finally:
        reg.stop_all()
    ids = {name: [line.split("\t")[0] for line in text.splitlines()]
           for name, text in answers.items()}
    same = ids["manycore"] == ids["mariadb"]
    scores_same = answers["manycore"] == answers["mariadb"]
    if not scores_same:
        pairs = zip(answers["manycore"].splitlines(), answers["mariadb"].splitlines())
        first = next(((i, m, d) for i, (m, d) in enumerate(pairs) if m != d), None)
        print(f"first difference (line, manycore, MariaDB): {first}")
    print()
    print(f"{args.rows} rows, {args.queries} searches, one connection "
          f"(rows {'identical' if same else 'DIFFER'}, "
          f"scores {'identical' if scores_same else 'differ'})")
    print("| server | ms per search (wall) | server CPU ms per search |")
    print("|---|---|---|")
    for name, (wall, cpu) in results.items():
        print(f"| {name} | {1000 * wall / args.queries:.2f} | {1000 * cpu / args.queries:.2f} |")
    m, d = results["manycore"], results["mariadb"]
    print(f"manycore / MariaDB: wall {m[0] / d[0]:.1f}x, server CPU {m[1] / max(d[1], 1e-9):.1f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
