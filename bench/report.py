"""Results: medians over repeats, the markdown tables, results.json, and chart.svg.

The chart is hand-written SVG (no plotting library): two panels for
oltp_point_select (and Redis GET at the same client counts), QPS and server CPU
microseconds per query, against client threads on a log-2 axis.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from workloads import Measurement

SERVERS = ("manycore", "mariadb", "redis")
TITLES = {"manycore": "manycore", "mariadb": "MariaDB", "redis": "Redis"}
LABELS = {
    "point_select/ps": "point_select (prepared)",
    "point_select/text": "point_select (text)",
    "read_only": "read_only",
    "read_write": "read_write",
    "yesmark": "yesmark `DO 0;` (streams)",
    "redis_get/P1": "Redis GET -P 1",
    "redis_get/P16": "Redis GET -P 16 (reference)",
    "write_only": "write_only",
    "update_index": "update_index",
}


@dataclass
class Results:
    """Measurements per server and (workload, threads); reasons for what is missing."""

    unavailable: dict[str, str] = field(default_factory=dict)
    runs: dict[str, dict[tuple[str, int], list[Measurement]]] = field(default_factory=dict)
    failures: dict[str, dict[tuple[str, int], str]] = field(default_factory=dict)
    extra: dict[str, dict[tuple[str, int], dict]] = field(default_factory=dict)

    def add(self, server: str, key: tuple[str, int], m: Measurement) -> None:
        self.runs.setdefault(server, {}).setdefault(key, []).append(m)

    def fail(self, server: str, key: tuple[str, int], reason: str) -> None:
        self.failures.setdefault(server, {})[key] = reason

    def median(self, server: str, key: tuple[str, int]) -> Measurement | None:
        ms = self.runs.get(server, {}).get(key)
        return median_of(ms) if ms else None


def median_of(ms: list[Measurement]) -> Measurement:
    """Field-wise median (each metric separately) over repeated measurements."""
    def med(values: Iterable[float | None]) -> float | None:
        vs = [v for v in values if v is not None]
        return statistics.median(vs) if vs else None

    d = {k: med(getattr(m, k) for m in ms) for k in
         ("qps", "p95_ms", "tps", "server_us", "server_user_us", "server_sys_us",
          "server_cores", "client_cores", "idle_pct", "counted_qps", "window_s")}
    return Measurement(**d, errors=sum(m.errors for m in ms),
                       note="; ".join(sorted({m.note for m in ms if m.note})))


# ---------------------------------------------------------------- formatting

def _num(v: float | None, digits: int = 0) -> str:
    if v is None:
        return "—"
    return f"{v:,.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "—"


def _cells(m: Measurement | None, failed: str | None) -> list[str]:
    if m is None:
        return ["fail" if failed else "—", "—", "—"]
    return [_num(m.qps), _num(m.p95_ms, 2), _num(m.server_us, 1)]


def main_table(res: Results, rows: list[tuple[str, int]], servers: list[str]) -> str:
    """Rows: workload x threads. Redis GET -P 1 at the same client count sits beside
    point_select; -P 16 rows are a reference line only."""
    head = ["workload", "threads"]
    for s in servers:
        t = TITLES[s]
        head += [f"{t} QPS", f"{t} p95 ms", f"{t} µs/q"]
    pairs = [(a, b) for a, b in (("manycore", "mariadb"), ("manycore", "redis"))
             if a in servers and b in servers]
    for a, b in pairs:
        head += [f"QPS {a}/{TITLES[b]}", f"µs/q {a}/{TITLES[b]}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for workload, threads in rows:
        cells = [LABELS.get(workload, workload), str(threads)]
        row: dict[str, Measurement | None] = {}
        for s in servers:
            key = _key_for(s, workload, threads)
            row[s] = res.median(s, key) if key else None
            failed = res.failures.get(s, {}).get(key) if key else None
            cells += _cells(row[s], failed)
        for a, b in pairs:
            ma, mb = row[a], row[b]
            cells += [_ratio(ma and ma.qps, mb and mb.qps),
                      _ratio(ma and ma.server_us, mb and mb.server_us)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _key_for(server: str, workload: str, threads: int) -> tuple[str, int] | None:
    if server == "redis":
        if workload.startswith("point_select"):
            return ("redis_get/P1", threads)
        return (workload, threads) if workload.startswith("redis_get") else None
    return None if workload.startswith("redis_get") else (workload, threads)


def detail_table(res: Results) -> str:
    head = ["server", "workload", "threads", "QPS", "server-counted QPS", "p95 ms",
            "µs/q", "user µs/q", "sys µs/q", "server cores", "client cores", "idle %",
            "repeats", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in SERVERS:
        for key, ms in res.runs.get(s, {}).items():
            m = median_of(ms)
            lines.append("| " + " | ".join([
                TITLES[s], LABELS.get(key[0], key[0]), str(key[1]), _num(m.qps),
                _num(m.counted_qps), _num(m.p95_ms, 2), _num(m.server_us, 1),
                _num(m.server_user_us, 1), _num(m.server_sys_us, 1), _num(m.server_cores, 2),
                _num(m.client_cores, 2), _num(m.idle_pct, 0), str(len(ms)),
                (m.note + (f" {m.errors} ignored errors" if m.errors else "")).strip()]) + " |")
        for key, reason in res.failures.get(s, {}).items():
            lines.append(f"| {TITLES[s]} | {LABELS.get(key[0], key[0])} | {key[1]} | failed: "
                         f"{reason.replace('|', '/')[:200]} |" + " |" * 10)
    return "\n".join(lines)


def availability(res: Results, servers: list[str]) -> str:
    out = []
    for s in servers:
        reason = res.unavailable.get(s)
        out.append(f"- {TITLES[s]}: " + (f"**unavailable** ({reason})" if reason else "measured"))
    return "\n".join(out)


def durable_table(res: Results, rows: list[tuple[str, int]], servers: list[str]) -> str:
    head = ["workload", "threads"]
    for s in servers:
        t = TITLES[s]
        head += [f"{t} TPS", f"{t} p95 ms", f"{t} µs/txn", f"{t} syncs/txn"]
    if "manycore" in servers and "mariadb" in servers:
        head += ["TPS manycore/MariaDB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in rows:
        cells = [LABELS.get(key[0], key[0]), str(key[1])]
        tps: dict[str, float | None] = {}
        for s in servers:
            m = res.median(s, key)
            extra = res.extra.get(s, {}).get(key, {})
            tps[s] = m.tps if m else None
            us_txn = m.server_us * m.qps / m.tps if m and m.tps else None
            cells += [_num(m.tps if m else None), _num(m.p95_ms if m else None, 2),
                      _num(us_txn, 0), _num(extra.get("syncs_per_txn"), 3)]
        if "manycore" in servers and "mariadb" in servers:
            cells.append(_ratio(tps.get("manycore"), tps.get("mariadb")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_json(path: Path, res: Results, meta: dict) -> None:
    def keyed(d: dict[tuple[str, int], object]) -> dict[str, object]:
        return {f"{w}@{t}": v for (w, t), v in d.items()}

    doc = {
        "meta": meta,
        "unavailable": res.unavailable,
        "runs": {s: {k: [m.as_dict() for m in ms] for k, ms in keyed(r).items()}
                 for s, r in res.runs.items()},
        "medians": {s: {k: median_of(ms).as_dict() for k, ms in keyed(r).items()}
                    for s, r in res.runs.items()},
        "failures": {s: keyed(f) for s, f in res.failures.items()},
        "extra": {s: keyed(e) for s, e in res.extra.items()},
    }
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


# ---------------------------------------------------------------- SVG chart

COLORS = {"manycore": "#d62728", "mariadb": "#1f77b4", "redis": "#2ca02c"}
SERIES = [  # (server, workload key, legend, dash pattern)
    ("manycore", "point_select/ps", "manycore prepared", ""),
    ("manycore", "point_select/text", "manycore text", "6,4"),
    ("mariadb", "point_select/ps", "MariaDB prepared", ""),
    ("mariadb", "point_select/text", "MariaDB text", "6,4"),
    ("redis", "redis_get/P1", "Redis GET -P1", ""),
    ("redis", "redis_get/P16", "Redis GET -P16", "2,3"),
]


def _nice_max(v: float) -> float:
    if v <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for step in (1, 2, 2.5, 5, 10):
        if step * exp >= v:
            return step * exp
    return 10 * exp


def _log_ticks(lo: float, hi: float) -> list[float]:
    ticks = []
    for exp in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        ticks += [m * 10 ** exp for m in (1, 2, 5) if lo <= m * 10 ** exp <= hi]
    return ticks


def _fmt_tick(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"


def _panel(x0: float, title: str, ylabel: str, threads: list[int],
           series: list[tuple[str, str, list[tuple[int, float]]]], log_y: bool) -> list[str]:
    """One chart panel; a log y axis keeps equal ratios at equal distances."""
    w, h, top, left, bottom = 440.0, 300.0, 40.0, 60.0, 40.0
    pw, ph = w - left - 20, h - top - bottom
    values = [v for _, _, pts in series for _, v in pts if v > 0] or [1.0]
    if log_y:
        ylo = 10 ** math.floor(math.log10(min(values)))
        yhi = max(10 ** math.ceil(math.log10(max(values))), ylo * 10)
        ticks = _log_ticks(ylo, yhi)
        scale = lambda v: (math.log10(max(v, ylo)) - math.log10(ylo)) / (  # noqa: E731
            math.log10(yhi) - math.log10(ylo))
    else:
        yhi = _nice_max(max(values) * 1.05)
        ticks = [yhi * i / 5 for i in range(6)]
        scale = lambda v: v / yhi  # noqa: E731
    lo, hi = math.log2(min(threads)), math.log2(max(threads))
    span = hi - lo or 1.0

    def px(t: int) -> float:
        return x0 + left + (math.log2(t) - lo) / span * pw

    def py(v: float) -> float:
        return top + ph - scale(v) * ph

    out = [f'<text x="{x0 + w / 2}" y="22" text-anchor="middle" font-size="14" '
           f'font-weight="bold">{title}</text>',
           f'<rect x="{x0 + left}" y="{top}" width="{pw}" height="{ph}" fill="none" '
           f'stroke="#999"/>']
    for v in ticks:
        y = py(v)
        out.append(f'<line x1="{x0 + left}" y1="{y:.1f}" x2="{x0 + left + pw}" y2="{y:.1f}" '
                   f'stroke="#eee"/>')
        out.append(f'<text x="{x0 + left - 6}" y="{y + 4:.1f}" text-anchor="end" '
                   f'font-size="11">{_fmt_tick(v)}</text>')
    for t in threads:
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 16}" text-anchor="middle" '
                   f'font-size="11">{t}</text>')
    out.append(f'<text x="{x0 + left + pw / 2}" y="{top + ph + 34}" text-anchor="middle" '
               f'font-size="12">client threads / connections (log2)</text>')
    out.append(f'<text x="{x0 + 14}" y="{top + ph / 2}" text-anchor="middle" font-size="12" '
               f'transform="rotate(-90 {x0 + 14} {top + ph / 2})">{ylabel}</text>')
    for color_dash, legend, pts in series:
        if not pts:
            continue
        color, dash = color_dash.split("|")
        path = " ".join(f"{px(t):.1f},{py(v):.1f}" for t, v in pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                   f'stroke-width="2"{dash_attr}><title>{legend}</title></polyline>')
        out += [f'<circle cx="{px(t):.1f}" cy="{py(v):.1f}" r="3" fill="{color}"/>'
                for t, v in pts]
    return out


def write_chart(path: Path, res: Results, threads: list[int], title: str) -> None:
    qps_series, us_series = [], []
    for server, key, legend, dash in SERIES:
        pts = [(t, res.median(server, (key, t))) for t in threads]
        ok = [(t, m) for t, m in pts if m is not None]
        style = f"{COLORS[server]}|{dash}"
        qps_series.append((style, legend, [(t, m.qps) for t, m in ok]))
        us_series.append((style, legend, [(t, m.server_us) for t, m in ok]))
    width, height = 900, 330
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 50}" '
            f'font-family="sans-serif">', f'<rect width="100%" height="100%" fill="white"/>']
    body += _panel(0, f"{title}: QPS (log scale)", "queries per second", threads, qps_series,
                   log_y=True)
    body += _panel(450, f"{title}: server CPU per query", "server CPU µs / query", threads,
                   us_series, log_y=False)
    for i, (style, legend, pts) in enumerate(qps_series):
        color, dash = style.split("|")
        x, y = 60.0 + 280 * (i // 2), height + 18 * (i % 2)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        muted = "" if pts else ' opacity="0.35"'
        body.append(f'<g{muted}><line x1="{x}" y1="{y}" x2="{x + 28}" y2="{y}" '
                    f'stroke="{color}" stroke-width="2"{dash_attr}/>'
                    f'<text x="{x + 34}" y="{y + 4}" font-size="11">{legend}'
                    f'{"" if pts else " (not measured)"}</text></g>')
    body.append("</svg>")
    path.write_text("\n".join(body) + "\n")
