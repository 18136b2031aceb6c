"""The benchmark's table: one line per profile as it finishes, and the whole run as Markdown
(the README's Performance section is pasted from it).

Every row names the baseline its ratios are against (bench/ghz_run.py): ``replay`` (the
echoes answer the profile's own call with the product's captured response), ``opaque``
(``Echo.Unary``, a bytes payload of the same size) or ``stream`` (``Echo.Stream``)."""

from __future__ import annotations

from typing import Any

HEADER = (
    f"{'profile':28} {'baseline':>8} {'product':>12} {'grpc.aio':>12} {'grpc-go':>12} "
    f"{'/aio':>6} {'/go':>6} {'p50 ms':>8} {'p99 ms':>8} {'aio p99':>8} "
    f"{'srv µs/u':>17} {'ghz µs/u':>17}"
)


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def _per_unit(key: str, *medians: dict[str, float]) -> list[float] | None:
    """CPU µs per unit of *key* (``server_cores``, ``client_cores``) of each of *medians*;
    None for older results without it."""
    if any(key not in m for m in medians):
        return None
    return [1e6 * m[key] / m["per_s"] for m in medians]


def profile_line(profile: Any, medians: dict[str, dict[str, float]], baseline: str) -> str:
    product, aio, go = medians["product"], medians["aio"], medians["go"]
    cpu = [
        "/".join(f"{v:.0f}" for v in per_unit) if per_unit else "—"
        for per_unit in (
            _per_unit("server_cores", product, aio),
            _per_unit("client_cores", product, aio),
        )
    ]
    return (
        f"{profile.name:28} {baseline:>8} {_rate(product['per_s']):>12} "
        f"{_rate(aio['per_s']):>12} {_rate(go['per_s']):>12} "
        f"{product['per_s'] / aio['per_s']:6.2f} {product['per_s'] / go['per_s']:6.2f} "
        f"{product['p50_ms']:8.2f} {product['p99_ms']:8.2f} {aio['p99_ms']:8.2f} "
        f"{cpu[0]:>17} {cpu[1]:>17}"
    )


def _busy(product: dict[str, float], aio: dict[str, float]) -> str:
    """The servers' busy cores, their CPU per unit and ghz's (older results lack some: a
    dash)."""
    if "server_cores" not in product or "server_cores" not in aio:
        return "— | — | —"
    server = _per_unit("server_cores", product, aio) or []
    client = _per_unit("client_cores", product, aio)
    ghz = f"{client[0]:,.1f} / {client[1]:,.1f}" if client else "—"
    return f"{_cores(product)} / {_cores(aio)} | {server[0]:,.1f} / {server[1]:,.1f} | {ghz}"


def _cores(medians: dict[str, float]) -> str:
    """A server's busy cores, and its event loop thread's share where measured."""
    busy = f"{medians['server_cores']:.2f}"
    return f"{busy} (loop {medians['loop_cores']:.2f})" if "loop_cores" in medians else busy


def _profiles_table(profiles: dict[str, Any]) -> list[str]:
    lines = [
        "| profile | what it measures | baseline | product | grpc.aio echo | ratio | grpc-go echo "
        "| ratio | p50 / p99 ms (product) | p99 ms (grpc.aio) | p99 ratio "
        "| server cores busy, of them its loop thread (product / grpc.aio) "
        "| server CPU µs per unit (product / grpc.aio) "
        "| ghz CPU µs per unit (product / grpc.aio) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in profiles.items():
        m, unit = entry["median"], entry["unit"]
        product, aio, go = m["product"], m["aio"], m["go"]
        lines.append(
            f"| `{name}` | {entry['measures']} (c={entry['concurrency']}) "
            f"| {entry.get('baseline', '—')} | {_rate(product['per_s'])} {unit} "
            f"| {_rate(aio['per_s'])} | {product['per_s'] / aio['per_s']:.2f} "
            f"| {_rate(go['per_s'])} | {product['per_s'] / go['per_s']:.2f} "
            f"| {product['p50_ms']:.1f} / {product['p99_ms']:.1f} | {aio['p99_ms']:.1f} "
            f"| {product['p99_ms'] / aio['p99_ms']:.1f}x | {_busy(product, aio)} |"
        )
    return lines


def _rows_table(rows: dict[str, Any]) -> list[str]:
    lines = ["| figure | product | baseline in the same run | ratio |", "|---|---|---|---|"]
    for row in rows.values():
        lines.append(f"| {row['figure']} | {row['product']} | {row['baseline']} | {row['ratio']} |")
    return lines


def _growth_tables(growth: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for curve in growth.values():
        lines += ["", f"{curve['title']}:", ""]
        columns = curve["columns"]
        lines.append("| " + " | ".join(columns) + " |")
        lines.append("|" + "---|" * len(columns))
        for point in curve["points"]:
            lines.append("| " + " | ".join(str(point[c]) for c in columns) + " |")
    return lines


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"{results['date']}, {results['machine']['cpus']} CPUs ({results['machine']['cpu']}), "
        f"maka-runtime {results['versions']['maka-runtime']} ({results['versions']['git']}), "
        f"Python {results['versions']['python']}, grpcio {results['versions']['grpcio']}, "
        f"{results['versions']['ghz']}; medians of {results['settings']['reps']} alternating "
        f"repetitions of {results['settings']['duration_s']:g} s",
        "",
        *_profiles_table(results["profiles"]),
    ]
    if "rows" in results:
        lines += ["", *_rows_table(results["rows"])]
    if "growth" in results:
        lines += _growth_tables(results["growth"])
    return "\n".join(lines)
