"""PNG figure of a sweep comparison (needs the optional ``plot`` extra: matplotlib).

One row per group: on the left a forest plot (mean paired difference from the
baseline with its t-interval, per value, coloured by verdict); on the right
each seed's metric across the values, one line per seed, so pairing is visible.
Diverged runs are marked with a red cross at the top of the panel.
"""

from __future__ import annotations

import io
import math
from typing import Any

COLOURS = {
    "reliably-better": "#1a7f37",
    "reliably-worse": "#cf222e",
    "no-reliable-difference": "#57606a",
    "under-powered": "#bf8700",
}
MAX_GROUPS = 6


def sweep_png(stats: dict[str, Any], *, dpi: int = 110) -> bytes:
    """Render the figure from ``report.summary.stats``; raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    groups = stats["groups"][:MAX_GROUPS]
    fig = Figure(figsize=(11, 3.2 * len(groups) + 0.6), dpi=dpi)
    axes = fig.subplots(len(groups), 2, squeeze=False)
    param, metric = stats["param"], stats["metric"]
    for row, gs in enumerate(groups):
        title = ", ".join(f"{k}={v}" for k, v in gs["group"].items())
        _forest(axes[row][0], gs, param, metric, stats, title)
        _lines(axes[row][1], gs, param, metric, stats, title)
    if len(stats["groups"]) > MAX_GROUPS:
        fig.suptitle(f"first {MAX_GROUPS} of {len(stats['groups'])} groups", fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _forest(ax, gs, param, metric, stats, title) -> None:
    comps = gs["comparisons"]
    ys = list(range(len(comps)))[::-1]
    for y, c in zip(ys, comps):
        colour = COLOURS[c["verdict"]]
        if c["ci_low"] is not None and math.isfinite(c["ci_low"]) and math.isfinite(c["ci_high"]):
            ax.plot([c["ci_low"], c["ci_high"]], [y, y], color=colour, lw=2)
        if c["mean_diff"] is not None:
            ax.plot([c["mean_diff"]], [y], "o", color=colour)
    ax.axvline(0.0, color="black", lw=0.8, ls="--")
    ax.set_ylim(-0.7, len(comps) - 0.3)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{c['value']}  ({c['verdict'].replace('-', ' ')})" for c in comps], fontsize=8)
    ax.set_xlabel(f"{metric} difference from {param}={gs['baseline']} ({100 * (1 - stats['alpha']):g}% CI)")
    ax.set_title(("paired differences" + (f" [{title}]" if title else "")), fontsize=10)


def _lines(ax, gs, param, metric, stats, title) -> None:
    labels = gs["values"]
    numbers = gs.get("value_numbers")
    xs = numbers if numbers else list(range(len(labels)))
    finite_vals = [v for per in gs["per_seed"].values() for v in per.values() if isinstance(v, float) and math.isfinite(v)]
    top = max(finite_vals) if finite_vals else 1.0
    for per in gs["per_seed"].values():
        pts = [(x, per.get(lab)) for x, lab in zip(xs, labels)]
        good = [(x, v) for x, v in pts if isinstance(v, float) and math.isfinite(v)]
        if good:
            ax.plot([p[0] for p in good], [p[1] for p in good], "-o", color="#8c959f", lw=0.8, ms=3, alpha=0.8)
        bad = [x for x, v in pts if isinstance(v, str)]  # "nan" / "inf": a diverged run
        if bad:
            ax.plot(bad, [top] * len(bad), "x", color="#cf222e", ms=8, mew=2)
    means = [gs["means"].get(lab) for lab in labels]
    mx = [(x, m) for x, m in zip(xs, means) if m is not None]
    if mx:
        ax.plot([p[0] for p in mx], [p[1] for p in mx], "-", color="black", lw=2, label="mean")
    if numbers and stats.get("log_spaced"):
        ax.set_xscale("log")
    if not numbers:
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=8)
    ax.set_xlabel(param)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} per seed" + (f" [{title}]" if title else ""), fontsize=10)
