"""Plain-text rendering of a sweep report: the comparison table, trend tests and notes, then the other findings."""

from __future__ import annotations

import math
from typing import Any

from mlsleuth.report import Report

VERDICT_TEXT = {
    "reliably-better": "reliably better",
    "reliably-worse": "reliably worse",
    "no-reliable-difference": "no reliable difference",
    "under-powered": "under-powered",
}
VERDICT_RULES = {"sweep-reliably-better", "sweep-reliably-worse", "sweep-no-reliable-difference", "sweep-under-powered"}


def decimals_for(values: list[Any], significant: int = 3) -> int:
    """Decimals that show the largest finite |value| with ``significant`` digits; one count for a whole column."""
    finite = [abs(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v) and v != 0]
    if not finite:
        return 2
    return min(10, max(0, significant - 1 - math.floor(math.log10(max(finite)))))


def _f(x: Any, decimals: int) -> str:
    """``x`` with a fixed number of decimals (``n/a``, ``inf`` as words)."""
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{decimals}f}"


def _p(p: Any) -> str:
    if p is None:
        return "n/a"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}"


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows]


def render_sweep_text(report: Report, *, plot_file: str | None = None) -> str:
    """The sweep's text; ``plot_file`` names the PNG written beside it (else the text says how to get one)."""
    from mlsleuth.render import render_text

    s = report.summary.stats
    out: list[str] = []
    kind = "numeric" + (", log-spaced" if s.get("log_spaced") else "") if s.get("numeric_param") else "categorical"
    better = "lower" if s.get("lower_is_better") else "higher"
    test = "paired t-test" if s.get("test") == "t" else "exact sign-flip test"
    out.append(
        f"parameter {s['param']} ({kind}), metric {s['metric']} ({better} is better), seeds from {s['seed']!r}; "
        f"{s['runs']} runs" + (f" (metric reduced per run: {s['reduce']})" if s.get("reduce") else "")
    )
    out.append(f"verdicts: {test} on per-seed differences from the baseline, Holm-adjusted within each group, alpha={s['alpha']:g}")
    for note in s.get("notes", []):
        out.append(f"note: {note}")
    for gs in s["groups"]:
        out.append("")
        if gs["group"]:
            out.append("group " + ", ".join(f"{k}={v}" for k, v in gs["group"].items()))
        # one number of decimals for every difference in the group (and the means they are differences of)
        spread = [x for c in gs["comparisons"] for x in (c["mean_diff"], c["ci_low"], c["ci_high"], c["hodges_lehmann"])]
        dp = decimals_for(spread)
        out.append(f"baseline {s['param']}={gs['baseline']} ({gs['baseline_rule']}); mean {s['metric']} by value: "
                   + ", ".join(f"{v}={_f(m, dp)}" for v, m in gs["means"].items()))
        out.append(f"Holm family: {gs['holm_family']}")
        ci = f"mean diff [{100 * (1 - s['alpha']):g}% CI]"
        headers = [s["param"], "n", ci, "d_z", "HL", "improved", "p t", "p exact", "p Holm", "verdict"]
        rows = []
        for c in gs["comparisons"]:
            diff = "n/a" if c["mean_diff"] is None else (
                f"{_f(c['mean_diff'], dp)} [{_f(c['ci_low'], dp)}, {_f(c['ci_high'], dp)}]" if c["ci_low"] is not None else _f(c["mean_diff"], dp))
            exact = _p(c["p_exact"]) + ("" if c["p_exact_is_exact"] else "*")
            verdict = VERDICT_TEXT[c["verdict"]]
            if c.get("sign_test"):
                verdict += " (divergence counted)"
            rows.append([c["value"], str(c["n_paired"]), diff, _f(c["d_z"], 2), _f(c["hodges_lehmann"], dp),
                         f"{c['improved']}/{c['n_paired']}", _p(c["p_t"]), exact, _p(c["p_holm"]), verdict])
        out.extend(_table(headers, rows, right={1, 3, 4, 5, 6, 7, 8}))
        if any(not c["p_exact_is_exact"] for c in gs["comparisons"]):
            out.append("* Monte Carlo sign-flip p (more than 20 seeds), fixed random seed")
        trend = gs.get("trend")
        if trend and "skipped" in trend:
            out.append(f"trend: skipped ({trend['skipped']})")
        elif trend:
            used = len(trend["seeds_used"])
            left = f"; left out: {', '.join(trend['values_left_out'])} (no usable run)" if trend.get("values_left_out") else ""
            fr = trend["friedman"]
            if "page" in trend:
                pg = trend["page"]
                if pg["p_two_sided"] is not None and pg["p_two_sided"] < s["alpha"]:
                    direction = "rises" if pg["p_increasing"] < pg["p_decreasing"] else "falls"
                    verdict = f"{s['metric']} {direction} with {s['param']}"
                else:  # a direction read off a non-significant statistic would be noise
                    verdict = f"no clear trend (p={_p(pg['p_two_sided'])})"
                out.append(f"trend ({used} seeds with every value{left}): Page's L={pg['L']:g}, two-sided p={_p(pg['p_two_sided'])} "
                           f"({pg['method']}); {verdict}")
                sl = trend["slope"]
                sp = decimals_for([sl["mean"], sl["ci_low"], sl["ci_high"]])
                out.append(f"  slope per unit {sl['x']}: {_f(sl['mean'], sp)} [{_f(sl['ci_low'], sp)}, {_f(sl['ci_high'], sp)}], "
                           f"{sl['seeds_positive']}/{used} seeds positive; best value {trend['best_value']}"
                           + (f"; interior optimum (curvature p={_p(trend['curvature']['p'])})" if trend["interior_optimum"] else ""))
            out.append(f"  omnibus: Friedman chi2={fr['statistic']:.4g}, p={_p(fr['p'])} ({fr['method']})")
        icc = gs.get("between_seed_correlation")
        if icc is not None:
            out.append(f"between-seed correlation (ICC, seeds with every value): {icc:.3f}"
                       + (f": pairing removes about {100 * icc:.0f}% of the seed-to-seed variance from each difference" if icc > 0 else ""))
        needed = [f"{c['value']}: {c['seeds_needed_80'] if c['seeds_needed_80'] else 'n/a'}" for c in gs["comparisons"]]
        out.append(f"paired seeds needed for 80% power at the observed effect (alpha={s['alpha']:g}): " + ", ".join(needed))
        out.append(gs["smallest_p_statement"])
        if gs["unpaired_seeds"]:
            out.append("unpaired seeds (excluded where they cannot pair): "
                       + "; ".join(f"{seed} lacks {', '.join(v)}" for seed, v in gs["unpaired_seeds"].items()))
        excluded = {seed: v for seed, v in gs["run_status"].items() if v}
        if excluded:
            out.append("runs without a usable result: " + "; ".join(
                f"seed {seed}: " + ", ".join(f"{val} {st}" for val, st in v.items() if st != "absent") for seed, v in excluded.items()
                if any(st != "absent" for st in v.values())))
        zs = gs.get("zscore")
        if zs and "p_holm" in zs:
            fpr = zs.get("false_positive_rate_two_values")
            out.append("z-score recipe (comparison only, miscalibrated" + (f": false-positive rate {fpr:.3g} at these seeds" if fpr else "")
                       + "): Holm p " + ", ".join(f"{v}={_p(p)}" for v, p in zs["p_holm"].items()))
    out.append("")
    if plot_file:
        out.append(f"plot: {plot_file} (per value, the paired difference from the baseline with its interval; each seed's line across the values)")
    else:
        out.append("plot: add --plot FILE.png for a figure of these paired differences with their intervals and each seed's line")
    others = report.model_copy(deep=True)
    others.findings = [f for f in report.findings if f.rule not in VERDICT_RULES]
    out.append("")
    body = render_text(others)
    return "\n".join(out) + "\n" + body
