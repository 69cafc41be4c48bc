"""Paired, seed-by-seed comparison of a sweep's parameter values, as a Report.

The design: every parameter value is run with the same seeds, so each seed
gives one *difference* per value against a baseline value; those
differences cancel everything a seed shares across values (initialisation,
data order), which is usually most of the run-to-run noise. Each value gets
a verdict from a paired test with Holm's correction across the values of
its group; numeric parameters also get a trend test with seeds as blocks.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mlsleuth.report import ErrorEntry, Finding, Location, Report
from mlsleuth.sweep import checks
from mlsleuth.sweep import stats as st
from mlsleuth.sweep.ingest import Runs, SweepInputError, load_runs

TESTS = ("t", "signflip")
# "Under-powered" means: even an effect of this many standard deviations of
# the paired differences would be detected less often than UNDERPOWERED_BELOW.
REFERENCE_EFFECT_DZ = 1.0
UNDERPOWERED_BELOW = 0.5
TARGET_POWER = 0.8


@dataclass
class Comparison:
    group: dict[str, str]
    value: str
    baseline: str
    n_paired: int
    seeds: list[str]
    mean_diff: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    d_z: float | None = None
    hodges_lehmann: float | None = None
    improved: int = 0
    worsened: int = 0
    tied: int = 0
    p_t: float | None = None
    p_exact: float | None = None
    p_exact_is_exact: bool = True
    p_test: float | None = None
    p_holm: float | None = None
    min_attainable_p: float | None = None
    power_at_reference: float | None = None
    seeds_needed_80: int | None = None
    verdict: str = "under-powered"
    family_size: int = 1
    diverged_only_value: int = 0
    diverged_only_baseline: int = 0
    sign_test: dict | None = None
    notes: list[str] = field(default_factory=list)
    zscore_p: float | None = None
    zscore_p_holm: float | None = None
    zscore_verdict: str | None = None


def _f(x: float | None) -> float | None:
    """A plain float, None for NaN (JSON output writes infinities as null too)."""
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return x  # pydantic serialises inf as 'Infinity' in JSON mode; callers check with math.isinf
    return x


def _num(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def _pfmt(p: float | None) -> str:
    if p is None:
        return "n/a"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}".rstrip("0").rstrip(".") if p < 1 else "1"


def compare_sweep(
    results: str | Path | list[dict],
    *,
    param: str,
    metric: str,
    seed: str,
    group: list[str] | tuple[str, ...] | str | None = None,
    lower_is_better: bool = False,
    baseline: str | float | None = None,
    alpha: float = 0.05,
    zscore: bool = False,
    reduce: str | None = None,
    step: str | None = None,
    layout: str = "auto",
    categorical: bool = False,
    test: str = "t",
    plot: bool = False,
    confine_to: str | Path | None = None,
):
    """Compare every value of ``param`` against a baseline, seed by seed.

    ``results`` is a results file (CSV/TSV/JSONL/JSON, W&B, MLflow or Optuna
    export), a TensorBoard log directory, or a list of dicts (one per run).
    Returns a :class:`~mlsleuth.report.Report` (tool ``sweep``): one verdict
    finding per compared value (reliably better / reliably worse / no
    reliable difference / under-powered), findings for diverged, failed,
    incomplete and unpaired runs, trend findings, and the full statistics
    table in ``report.summary.stats``. With ``plot=True`` returns
    ``(report, png_bytes)``; the PNG is None (and the report carries an
    error entry) when matplotlib is not installed.

    ``confine_to`` (a server passes its root): symbolic links in a log directory that
    lead outside it are not followed, and the report's notes name them.

    Raises :class:`~mlsleuth.sweep.ingest.SweepInputError` (a ValueError)
    when the input cannot be analysed; its message says what to change.
    """
    if not 0.0 < alpha < 1.0:
        raise SweepInputError(f"alpha must be between 0 and 1, got {alpha}")
    if test not in TESTS:
        raise SweepInputError(f"unknown test {test!r}; use one of {', '.join(TESTS)}")
    groups = [group] if isinstance(group, str) else list(group or [])
    groups = [g.strip() for name in groups for g in name.split(",") if g.strip()]
    runs = load_runs(
        results, param=param, metric=metric, seed=seed, groups=groups, lower_is_better=lower_is_better,
        reduce=reduce, step=step, layout=layout, categorical=categorical, confine_to=confine_to,
    )
    analysis = SweepAnalysis(runs, lower_is_better=lower_is_better, baseline=baseline, alpha=alpha, zscore=zscore, test=test)
    report = analysis.run()
    if not plot:
        return report
    png = None
    try:
        from mlsleuth.sweep.plot import sweep_png

        png = sweep_png(report.summary.stats)
    except ImportError:
        report.errors.append(ErrorEntry(kind="plot-unavailable", message="plotting needs matplotlib: pip install 'mlsleuth[plot]'"))
        report.finalize(sort=False, text=report.summary.text)
    return report, png


class SweepAnalysis:
    def __init__(self, runs: Runs, *, lower_is_better: bool, baseline, alpha: float, zscore: bool, test: str):
        self.runs = runs
        self.sign = -1.0 if lower_is_better else 1.0
        self.lower_is_better = lower_is_better
        self.baseline = baseline
        self.alpha = alpha
        self.zscore = zscore
        self.test = test
        self.findings: list[Finding] = []
        self.errors: list[ErrorEntry] = []
        self.location = Location(path=runs.source)

    # -- helpers ---------------------------------------------------------
    def label(self, key) -> str:
        return f"{self.runs.param}={self.runs.value_labels[key]}"

    def gdict(self, g: tuple[str, ...]) -> dict[str, str]:
        return dict(zip(self.runs.group_names, g))

    def gtext(self, g: tuple[str, ...]) -> str:
        return ", ".join(f"{k}={v}" for k, v in zip(self.runs.group_names, g))

    def add(self, rule: str, message: str, *, observation: str = "", measurements: dict | None = None,
            next_test: str = "", fix: str | None = None, severity: str | None = None) -> None:
        doc = checks.DOCS[rule]
        self.findings.append(Finding(
            rule=rule, category=doc.category, severity=severity or doc.severity, message=message,
            location=self.location.model_copy(), observation=observation, measurements=measurements or {},
            next_test=next_test, fix=fix,
        ))

    # -- main ------------------------------------------------------------
    def run(self) -> Report:
        r = self.runs
        idx_by_group: dict[tuple, list[int]] = {}
        for i, g in enumerate(r.groups):
            idx_by_group.setdefault(g, []).append(i)
        group_stats = []
        paired_somewhere = False
        for g, idx in idx_by_group.items():
            gs = self.analyse_group(g, idx)
            if gs is not None:
                group_stats.append(gs)
                paired_somewhere = True
        if not paired_somewhere:
            raise SweepInputError(
                f"{r.source}: no seed was run with more than one value of {r.param!r}"
                + (" within any group" if r.group_names else "")
                + ", so nothing can be paired. Run the same seeds for every value (`mlsleuth sweep --plan` prints the commands)."
            )
        verdicts = [c["verdict"] for gs in group_stats for c in gs["comparisons"]]
        counts = {v: verdicts.count(v) for v in ("reliably-better", "reliably-worse", "no-reliable-difference", "under-powered")}
        bad_runs = sum(1 for s in r.status if s != "ok")
        text = f"{r.param} vs {r.metric}: " + ", ".join(f"{n} {v.replace('-', ' ').replace('under powered', 'under-powered')}" for v, n in counts.items() if n)
        if bad_runs:
            text += f"; {bad_runs} run{'s' if bad_runs != 1 else ''} without a usable result"
        text += "; " + "; ".join((", ".join(f"{k}={v}" for k, v in gs["group"].items()) + ": " if gs["group"] else "") + gs["conclusion"] for gs in group_stats)
        stats = {
            "param": r.param,
            "metric": r.metric,
            "seed": r.seed,
            "group_by": list(r.group_names),
            "numeric_param": r.numeric,
            "log_spaced": r.log_spaced,
            "lower_is_better": self.lower_is_better,
            "alpha": self.alpha,
            "test": self.test,
            "reduce": r.reduce,
            "runs": len(r.status),
            "runs_by_status": {s: r.status.count(s) for s in sorted(set(r.status))},
            "verdict_counts": counts,
            "notes": r.notes,
            "groups": group_stats,
        }
        report = Report(tool="sweep", findings=self.findings, errors=self.errors)
        return report.finalize(text=text, stats=stats, sort=False)

    def analyse_group(self, g: tuple, idx: list[int]) -> dict | None:
        r = self.runs
        where = f" ({self.gtext(g)})" if g else ""
        keys = [k for k in r.value_keys if any(r.values[i] == k for i in idx)]
        if len(keys) < 2:
            self.errors.append(ErrorEntry(kind="single-value-group", message=f"group{where} has only one value of {r.param} ({r.value_labels[keys[0]]}); nothing to compare there"))
            return None
        seeds = sorted({r.seeds[i] for i in idx}, key=_seed_key)
        kpos = {k: j for j, k in enumerate(keys)}
        spos = {s: i for i, s in enumerate(seeds)}
        y = np.full((len(seeds), len(keys)), np.nan)
        status = np.full((len(seeds), len(keys)), "absent", dtype=object)
        labels = np.full((len(seeds), len(keys)), "", dtype=object)
        for i in idx:
            a, b = spos[r.seeds[i]], kpos[r.values[i]]
            y[a, b] = r.metric_values[i]
            status[a, b] = r.status[i]
            labels[a, b] = r.labels[i]
        present_count = (status != "absent").sum(1)
        if (present_count >= 2).sum() == 0:
            self.errors.append(ErrorEntry(kind="no-repeated-seeds", message=f"group{where}: no seed was run with two or more values of {r.param}; nothing can be paired"))
            return None
        ok = status == "ok"
        self.report_bad_runs(g, keys, seeds, y, status, labels)
        unpaired = {s: [r.value_labels[keys[j]] for j in range(len(keys)) if status[i, j] == "absent"] for i, s in enumerate(seeds) if (status[i] == "absent").any()}
        if unpaired:
            self.report_unpaired(g, seeds, keys, unpaired)
        usable = ok.any(0)  # values with at least one usable run; the others cannot enter block tests
        keys_c = [k for k, u in zip(keys, usable) if u]
        complete = ok[:, usable].all(1)
        yc = y[complete][:, usable]
        seeds_complete = [s for s, c in zip(seeds, complete) if c]
        base_key = self.pick_baseline(g, keys, y, ok, complete)
        if base_key is None:
            return None
        b = kpos[base_key]
        div = status == "diverged"
        comps = [
            self.compare_pair(g, seeds, y[:, j], y[:, b], ok[:, j] & ok[:, b], div[:, j] & ok[:, b], div[:, b] & ok[:, j], keys[j], base_key)
            for j in range(len(keys)) if j != b
        ]
        family = None
        if self.baseline is None and len(keys) >= 3:
            # The baseline was picked from the data (the best mean), so its comparisons are a
            # data-chosen subset of all pairs. Holm over every pair keeps the family-wise error
            # at alpha whichever subset is reported.
            family = {}
            for j in range(len(keys)):
                for l in range(j + 1, len(keys)):
                    if b in (j, l):
                        continue
                    cp = self.compare_pair(g, seeds, y[:, j], y[:, l], ok[:, j] & ok[:, l], div[:, j] & ok[:, l], div[:, l] & ok[:, j], keys[j], keys[l],
                                           p_only=True)
                    family[(j, l)] = cp.p_test
        self.apply_holm(comps, family)
        zs = None
        if self.zscore:
            zs = self.zscore_recipe(g, comps, yc, keys_c, keys_c.index(base_key), seeds_complete) if base_key in keys_c else None
        for c in comps:
            self.verdict_finding(c, g)
        trend = self.trend(g, keys_c, yc, seeds_complete)
        if trend is not None and len(keys_c) < len(keys):
            trend["values_left_out"] = [r.value_labels[k] for k in keys if k not in keys_c]
        icc = st.icc_consistency(yc) if yc.shape[0] >= 2 and yc.shape[1] >= 2 else None
        per_seed = {s: {r.value_labels[k]: (_metric_cell(y[i, j]) if status[i, j] in ("ok", "diverged") else None) for j, k in enumerate(keys)}
                    for i, s in enumerate(seeds)}
        statuses = {s: {r.value_labels[k]: status[i, j] for j, k in enumerate(keys) if status[i, j] != "ok"} for i, s in enumerate(seeds)}
        means = {r.value_labels[k]: _f(np.nanmean(np.where(ok[:, j], y[:, j], np.nan))) if ok[:, j].any() else None for j, k in enumerate(keys)}
        n_pairs = [c.n_paired for c in comps]
        s_typ = max(n_pairs) if n_pairs else 0
        m = comps[0].family_size if comps else 0
        return {
            "group": self.gdict(g),
            "values": [r.value_labels[k] for k in keys],
            "value_numbers": [float(k) for k in keys] if r.numeric else None,
            "baseline": r.value_labels[base_key],
            "baseline_rule": "given" if self.baseline is not None else "best mean over seeds with every value",
            "holm_family": (f"all {m} pairs of values (the baseline was chosen from the data)" if family is not None
                            else f"the {m} comparison{'s' if m != 1 else ''} with the baseline"),
            "seeds": seeds,
            "complete_seeds": seeds_complete,
            "unpaired_seeds": unpaired,
            "run_status": {s: v for s, v in statuses.items() if v},
            "means": means,
            "per_seed": per_seed,
            "comparisons": [_comparison_dict(c) for c in comps],
            "between_seed_correlation": _f(icc),
            "trend": trend,
            "zscore": zs,
            "smallest_exact_p": st.min_signflip_p(s_typ),
            "smallest_exact_p_holm": min(1.0, m * st.min_signflip_p(s_typ)),
            "smallest_p_statement": _smallest_p_statement(s_typ, m, self.alpha),
        } | {"conclusion": conclusion(r.param, r.value_labels[base_key], self.baseline is not None, [_comparison_dict(c) for c in comps])}

    # -- pieces ----------------------------------------------------------
    def pick_baseline(self, g, keys, y, ok, complete):
        r = self.runs
        where = f" in group {self.gtext(g)}" if g else ""
        if self.baseline is not None:
            want = str(self.baseline).strip()
            match = None
            if r.numeric:
                try:
                    fv = float(want)
                    match = next((k for k in keys if math.isclose(k, fv, rel_tol=1e-9, abs_tol=1e-15)), None)
                except ValueError:
                    match = None
            else:
                match = want if want in keys else None
            if match is None:
                shown = ", ".join(r.value_labels[k] for k in keys)
                msg = f"baseline {want!r} is not a value of {r.param}{where}; values: {shown}"
                if len(set(r.groups)) > 1:
                    self.errors.append(ErrorEntry(kind="baseline-missing", message=msg))
                    return None
                raise SweepInputError(msg)
            return match
        rows = complete if complete.sum() >= 2 else np.ones(len(complete), bool)
        means = []
        for j in range(len(keys)):
            sel = rows & ok[:, j]
            means.append(self.sign * float(y[sel, j].mean()) if sel.any() else -math.inf)
        if all(m_ == -math.inf for m_ in means):
            self.errors.append(ErrorEntry(kind="no-results", message=f"no run{where} produced a usable {r.metric}"))
            return None
        return keys[int(np.argmax(means))]

    def compare_pair(self, g, seeds, yv, yb, both, value_diverged, baseline_diverged, key, base_key, p_only: bool = False) -> Comparison:
        """Paired statistics of one value against another; ``p_only`` skips what only the table needs."""
        r = self.runs
        c = Comparison(group=self.gdict(g), value=r.value_labels[key], baseline=r.value_labels[base_key], n_paired=int(both.sum()),
                       seeds=[s for s, u in zip(seeds, both) if u])
        c.diverged_only_value = int(value_diverged.sum())
        c.diverged_only_baseline = int(baseline_diverged.sum())
        d = (yv - yb)[both]
        oriented = self.sign * d
        if c.diverged_only_value or c.diverged_only_baseline:
            # A seed where exactly one side diverged is a loss for that side; the t-test cannot
            # use a non-finite difference, so an exact sign test on wins and losses decides.
            wins = int((oriented > 0).sum()) + c.diverged_only_baseline
            losses = int((oriented < 0).sum()) + c.diverged_only_value
            c.sign_test = {"wins": wins, "losses": losses, "p": st.sign_test_pvalue(wins, losses)}
            c.notes.append(
                f"{c.diverged_only_value} seed(s) diverged only with this value and {c.diverged_only_baseline} only with the baseline;"
                " each counts as a loss for the side that diverged, and an exact sign test on wins and losses decides"
            )
        if c.n_paired == 0:
            if c.sign_test:
                c.p_test = c.sign_test["p"]
            else:
                c.notes.append("no seed has a usable result for both this value and the baseline")
            return c
        c.improved = int((oriented > 0).sum())
        c.worsened = int((oriented < 0).sum())
        c.tied = int((oriented == 0).sum())
        c.mean_diff = float(d.mean())
        c.hodges_lehmann = st.hodges_lehmann(d)
        c.min_attainable_p = st.min_signflip_p(c.n_paired)
        c.p_exact, c.p_exact_is_exact = st.signflip_pvalue(d)
        if c.n_paired < 2:
            if c.sign_test:
                c.p_test = c.sign_test["p"]
            else:
                c.notes.append("a single paired seed cannot show a reliable difference")
            return c
        pt = st.paired_t(d, self.alpha)
        c.ci_low, c.ci_high, c.d_z = pt.ci_low, pt.ci_high, pt.d_z
        c.p_t = pt.p if pt.sd > 0 else None  # undefined when every difference is the same
        if c.sign_test:
            c.p_test = c.sign_test["p"]
        elif self.test == "signflip":
            c.p_test = c.p_exact
        elif pt.sd == 0.0 and pt.mean != 0.0:
            c.p_test = c.p_exact
            c.notes.append("every seed moved by exactly the same amount, so the t-test is undefined; the exact sign-flip p decides")
        else:
            c.p_test = pt.p
        if math.isfinite(pt.d_z) and pt.d_z != 0 and not p_only:
            c.seeds_needed_80 = st.seeds_needed(pt.d_z, self.alpha, TARGET_POWER)
        return c

    def apply_holm(self, comps: list[Comparison], other_pairs: dict | None = None) -> None:
        """Holm-adjust the comparisons' p-values, within a family that may hold further pairs."""
        extra = [p for p in (other_pairs or {}).values()]
        m = len(comps) + len(extra)
        tested = [c for c in comps if c.p_test is not None]
        if tested:
            pool = [c.p_test for c in tested] + [1.0 if p is None else p for p in extra] + [1.0] * (len(comps) - len(tested))
            adj = st.holm(pool)
            for c, p in zip(tested, adj):
                c.p_holm = float(p)
        for c in comps:
            c.family_size = m
            if c.n_paired >= 2:
                c.power_at_reference = st.nct_power_two_sided(REFERENCE_EFFECT_DZ * math.sqrt(c.n_paired), c.n_paired - 1, self.alpha / max(1, m))
            if c.p_holm is not None and c.p_holm <= self.alpha:
                if c.sign_test:
                    ahead = c.sign_test["wins"] > c.sign_test["losses"]
                else:
                    ahead = self.sign * (c.mean_diff or 0.0) > 0
                c.verdict = "reliably-better" if ahead else "reliably-worse"
            elif c.sign_test:
                n_sign = c.sign_test["wins"] + c.sign_test["losses"]
                c.verdict = "under-powered" if m * st.min_signflip_p(n_sign) > self.alpha else "no-reliable-difference"
            elif c.p_holm is None or c.n_paired < 2 or self.test == "signflip" and m * st.min_signflip_p(c.n_paired) > self.alpha or (c.power_at_reference or 0.0) < UNDERPOWERED_BELOW:
                c.verdict = "under-powered"
            else:
                c.verdict = "no-reliable-difference"

    def verdict_finding(self, c: Comparison, g) -> None:
        r = self.runs
        where = f" [{self.gtext(g)}]" if g else ""
        vs = f"{r.param}={c.value} vs {r.param}={c.baseline}{where}"
        better = "lower" if self.lower_is_better else "higher"
        obs_bits = [f"n paired={c.n_paired}"]
        if c.mean_diff is not None:
            obs_bits.append(f"mean diff={_num(c.mean_diff)}" + (f" [{_num(c.ci_low)}, {_num(c.ci_high)}] ({100 * (1 - self.alpha):g}% t-interval)" if c.ci_low is not None else ""))
            obs_bits.append(f"d_z={_num(c.d_z, 3)}, HL={_num(c.hodges_lehmann)}")
            obs_bits.append(f"{c.improved}/{c.n_paired} seeds improved ({better} {r.metric} is better)")
            obs_bits.append(f"p (paired t)={_pfmt(c.p_t)}, p (sign-flip{'' if c.p_exact_is_exact else ', Monte Carlo'})={_pfmt(c.p_exact)}, p Holm={_pfmt(c.p_holm)}")
        observation = "; ".join(obs_bits)
        meas = _comparison_dict(c)
        need = f"about {c.seeds_needed_80} paired seeds" if c.seeds_needed_80 else "more seeds than practical"
        if c.verdict == "reliably-better":
            self.add("sweep-reliably-better", f"{vs}: reliably better ({_num(c.mean_diff)} {r.metric}, {c.improved} of {c.n_paired} seeds improved)",
                     observation=observation, measurements=meas,
                     next_test=f"confirm on fresh seeds (not the ones used here) before adopting {r.param}={c.value}",
                     fix=f"prefer {r.param}={c.value} over {c.baseline}; report the interval, not just the best seed")
        elif c.verdict == "reliably-worse":
            self.add("sweep-reliably-worse", f"{vs}: reliably worse ({_num(c.mean_diff)} {r.metric}, {c.worsened} of {c.n_paired} seeds worse)",
                     observation=observation, measurements=meas,
                     next_test=f"if the gap is surprising, look at the per-seed curves of {r.param}={c.value} for instability before ruling it out")
        elif c.verdict == "no-reliable-difference":
            self.add("sweep-no-reliable-difference", f"{vs}: no reliable difference at {c.n_paired} seeds",
                     observation=observation, measurements=meas,
                     next_test=f"to detect the observed effect with 80% power you would need {need}; otherwise treat the two as equivalent within the interval")
        else:
            why = "; ".join(c.notes) if c.notes else (
                f"even an effect of {REFERENCE_EFFECT_DZ:g} SD of the paired differences would be detected with probability {_num(c.power_at_reference, 2)} at this seed count"
                if c.power_at_reference is not None else "too few paired seeds")
            if self.test == "signflip" and c.n_paired >= 2 and c.family_size * st.min_signflip_p(c.n_paired) > self.alpha:
                why = (f"with {c.n_paired} seeds the exact test cannot go below p={_pfmt(c.min_attainable_p)}"
                       + (f" (x{c.family_size} for Holm)" if c.family_size > 1 else ""))
            self.add("sweep-under-powered", f"{vs}: under-powered, cannot tell ({why})",
                     observation=observation, measurements=meas,
                     next_test=f"run more seeds with both values (the same seeds for each); at the observed effect you need {need} for 80% power")

    def report_bad_runs(self, g, keys, seeds, y, status, labels) -> None:
        r = self.runs
        where = f" [{self.gtext(g)}]" if g else ""
        for j, k in enumerate(keys):
            col = status[:, j]
            for kind, rule in (("diverged", "sweep-run-diverged"), ("failed", "sweep-run-failed"), ("missing", "sweep-run-failed"), ("incomplete", "sweep-run-incomplete")):
                rows = [i for i in range(len(seeds)) if col[i] == kind]
                if not rows:
                    continue
                present = int((col != "absent").sum())
                others = {kk: int((status[:, jj] == kind).sum()) for jj, kk in enumerate(keys) if jj != j}
                runs_txt = ", ".join(f"seed {seeds[i]} ({labels[i, j]}{': ' + str(y[i, j]) if kind == 'diverged' else ''})" for i in rows[:8])
                if len(rows) > 8:
                    runs_txt += f", ... ({len(rows)} in all)"
                if kind == "diverged":
                    msg = f"{self.label(k)}{where}: {len(rows)} of {present} seeds diverged (non-finite {r.metric}); a divergence is a result, not noise"
                    nxt = f"rerun one diverged seed with anomaly detection / `mlsleuth nan` to find where the first NaN appears; compare with the {sum(others.values())} divergence(s) at other values"
                elif kind == "failed":
                    msg = f"{self.label(k)}{where}: {len(rows)} of {present} runs failed or crashed; they are excluded from the comparison"
                    nxt = "read the failed runs' logs: a crash that depends on the parameter value (e.g. out of memory at a large batch) is itself a finding"
                elif kind == "missing":
                    msg = f"{self.label(k)}{where}: {len(rows)} of {present} runs recorded no {r.metric}; they are excluded from the comparison"
                    nxt = "check whether those runs crashed before their first evaluation, or logged the metric under another name"
                else:
                    msg = f"{self.label(k)}{where}: {len(rows)} of {present} runs are unfinished (running, queued or pruned); they are excluded"
                    nxt = "wait for them to finish, or compare only finished runs on purpose; pruned trials were stopped on a partial result"
                self.add(rule, msg, observation="runs: " + runs_txt,
                         measurements={"value": r.value_labels[k], "group": self.gdict(g), "status": kind, "seeds": [seeds[i] for i in rows],
                                       "runs": [labels[i, j] for i in rows], "count": len(rows), "of": present,
                                       "same_status_at_other_values": {r.value_labels[kk]: n for kk, n in others.items()}},
                         next_test=nxt)

    def report_unpaired(self, g, seeds, keys, unpaired: dict[str, list[str]]) -> None:
        r = self.runs
        where = f" [{self.gtext(g)}]" if g else ""
        parts = [f"seed {s} lacks {r.param}={', '.join(v[:5])}{' ...' if len(v) > 5 else ''}" for s, v in list(unpaired.items())[:10]]
        alone = [s for s, v in unpaired.items() if len(v) == len(keys) - 1]
        msg = f"{len(unpaired)} seed{'s' if len(unpaired) != 1 else ''}{where} not run with every value: excluded from the comparisons they cannot pair in and from the trend tests"
        if alone:
            msg += f"; seed{'s' if len(alone) != 1 else ''} {', '.join(alone[:10])} pair{'s' if len(alone) == 1 else ''} with nothing"
        self.add("sweep-unpaired-seeds", msg, observation="; ".join(parts),
                 measurements={"group": self.gdict(g), "unpaired": unpaired, "fully_unpaired": alone},
                 next_test="run the missing (value, seed) combinations; `mlsleuth sweep --plan` prints the full paired design")

    def trend(self, g, keys, yc, seeds_complete) -> dict | None:
        r = self.runs
        k = len(keys)
        n = yc.shape[0]
        if k < 3:
            return None
        if n < 2:
            return {"skipped": f"the trend tests need at least 2 seeds with every value (have {n})"}
        where = f" [{self.gtext(g)}]" if g else ""
        fr = st.friedman(yc)
        out: dict[str, Any] = {"seeds_used": seeds_complete, "friedman": {"statistic": fr.statistic, "p": fr.p, "method": fr.method}}
        if not r.numeric:
            return out
        x = np.log10(np.asarray(keys, float)) if r.log_spaced else np.asarray(keys, float)
        big_l, p_inc, p_dec, method = st.page_l(yc)
        p_two = min(1.0, 2.0 * min(p_inc, p_dec))
        slopes = st.slope_per_row(x, yc)
        quad = st.quadratic_per_row(x, yc)
        slope_t = st.paired_t(slopes, self.alpha) if n >= 2 else None
        quad_t = st.paired_t(quad, self.alpha) if n >= 2 else None
        means = yc.mean(0)
        best = int(np.argmax(self.sign * means))
        interior = 0 < best < k - 1
        # concave for higher-is-better, convex for lower-is-better: the optimum is a peak (or a valley)
        curved_toward_optimum = quad_t is not None and quad_t.p <= self.alpha and self.sign * quad_t.mean < 0
        x_name = f"log10({r.param})" if r.log_spaced else r.param
        out.update({
            "page": {"L": big_l, "p_increasing": p_inc, "p_decreasing": p_dec, "p_two_sided": p_two, "method": method},
            "slope": {"x": x_name, "per_seed": dict(zip(seeds_complete, map(float, slopes))), "mean": slope_t.mean if slope_t else None,
                      "ci_low": slope_t.ci_low if slope_t else None, "ci_high": slope_t.ci_high if slope_t else None,
                      "p": slope_t.p if slope_t else None, "seeds_positive": int((slopes > 0).sum())},
            "curvature": {"mean": quad_t.mean if quad_t else None, "p": quad_t.p if quad_t else None},
            "best_value": r.value_labels[keys[best]],
            "interior_optimum": bool(interior and curved_toward_optimum),
        })
        direction = "rises" if p_inc < p_dec else "falls"
        obs = (f"Page's L={big_l:g} ({method}), two-sided p={_pfmt(p_two)}; Friedman chi2={fr.statistic:.3g}, p={_pfmt(fr.p)} ({fr.method}); "
               f"slope per unit {x_name}: mean {_num(slope_t.mean)} [{_num(slope_t.ci_low)}, {_num(slope_t.ci_high)}], "
               f"{int((slopes > 0).sum())}/{n} seeds positive; {n} seeds with every value")
        if p_two <= self.alpha and not out["interior_optimum"]:
            self.add("sweep-monotone-trend", f"{r.metric} {direction} steadily with {r.param}{where} across the {k} values",
                     observation=obs, measurements=out,
                     next_test=f"the best value ({r.value_labels[keys[best]]}) is at the edge of the range: extend the sweep past it" if best in (0, k - 1) else "check the per-seed lines for a plateau")
        if out["interior_optimum"]:
            self.add("sweep-interior-optimum", f"{r.metric} peaks inside the range of {r.param}{where} (best: {r.value_labels[keys[best]]}); a monotone trend summary would mislead",
                     observation=obs + f"; curvature p={_pfmt(quad_t.p)}", measurements=out,
                     next_test=f"refine the grid around {r.value_labels[keys[best]]} with the same seeds")
        return out

    def zscore_recipe(self, g, comps: list[Comparison], yc, keys, b, seeds_complete) -> dict:
        r = self.runs
        n, k = yc.shape
        if n < 2 or k < 2:
            return {"skipped": "needs at least 2 seeds with a usable result for at least 2 values"}
        z = st.zscore_within_seed(yc)
        others = [j for j in range(k) if j != b]
        dz = z[:, others] - z[:, [b]]
        p = st.paired_t_pvalues(dz.T)
        adj = st.holm(p)
        by_label = {}
        mean_z = {}
        for col, (j, pj, aj) in enumerate(zip(others, p, adj)):
            by_label[r.value_labels[keys[j]]] = (float(pj), float(aj))
            mean_z[r.value_labels[keys[j]]] = float(dz[:, col].mean())
        disagreements = []
        for c in comps:
            if c.value in by_label:
                c.zscore_p, c.zscore_p_holm = by_label[c.value]
                if c.zscore_p_holm <= self.alpha:
                    c.zscore_verdict = "reliably-better" if self.sign * mean_z[c.value] > 0 else "reliably-worse"
                else:
                    c.zscore_verdict = "no-reliable-difference"
                paired_sig = c.verdict in ("reliably-better", "reliably-worse")
                if (c.zscore_verdict != "no-reliable-difference") != paired_sig:
                    disagreements.append(c.value)
        fpr = 2.0 ** (1 - n) if k == 2 else None
        where = f" [{self.gtext(g)}]" if g else ""
        msg = f"z-score recipe shown for comparison only{where}: it is miscalibrated at few seeds"
        if disagreements:
            msg += f"; it disagrees with the paired test for {r.param}={', '.join(disagreements)}"
        caveat = "Standardising each seed across values and then t-testing the z-scores discards the size of each seed's spread"
        if k == 2:
            caveat += (f"; with two values every z is +-0.71, the t statistic is infinite whenever all seeds agree in sign, and the "
                       f"false-positive rate is 2^(1-S) (S={n}: {2.0 ** (1 - n):.3g}) instead of alpha={self.alpha:g}.")
        else:
            caveat += ("; its p-values are not calibrated against the per-seed noise (with two values it flags a difference "
                       "whenever all seeds agree in sign, 25% of the time at three seeds under no effect).")
        self.add("sweep-zscore-recipe", msg, observation=caveat + " z-recipe Holm p: " + ", ".join(f"{v}={_pfmt(a)}" for v, (_, a) in by_label.items()),
                 measurements={"group": self.gdict(g), "p": {v: pv for v, (pv, _) in by_label.items()}, "p_holm": {v: a for v, (_, a) in by_label.items()},
                               "false_positive_rate_two_values": fpr, "disagrees_for": disagreements},
                 next_test="trust the paired verdicts; see benchmarks/bench_sweep_calibration.py for the measured false-positive rates")
        return {"p": {v: pv for v, (pv, _) in by_label.items()}, "p_holm": {v: a for v, (_, a) in by_label.items()},
                "false_positive_rate_two_values": fpr, "seeds_used": seeds_complete}


def _metric_cell(x: float) -> float | str:
    """A run's metric for the per-seed table: the number, or "nan" / "inf" / "-inf" for a diverged run."""
    x = float(x)
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _seed_key(s: str):
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


def _comparison_dict(c: Comparison) -> dict:
    d = asdict(c)
    for k, v in d.items():
        if isinstance(v, float):
            d[k] = _f(v)
    return d


def conclusion(param: str, baseline: str, baseline_given: bool, comparisons: list[dict]) -> str:
    """One sentence naming the winner of a group's comparisons, or saying why there is none.

    Verdicts compare each value with the baseline. The baseline wins when every other value is
    reliably worse; a given baseline is beaten by the one value reliably better than it (several
    such values were not compared with each other, so none of them is named the winner).
    """
    if not comparisons:
        return "no clear winner (nothing could be compared)"
    worse = [c["value"] for c in comparisons if c["verdict"] == "reliably-worse"]
    better = [c["value"] for c in comparisons if c["verdict"] == "reliably-better"]
    unsure = [c["value"] for c in comparisons if c["verdict"] in ("under-powered", "no-reliable-difference")]
    if len(worse) == len(comparisons):
        return f"winner: {param}={baseline} (reliably better than every other value)"
    if baseline_given and len(better) == 1:
        return f"winner: {param}={better[0]} (reliably better than the baseline {param}={baseline}; the other values were not compared with it)"
    if better:
        return f"no clear winner: {', '.join(f'{param}={v}' for v in better)} are each reliably better than the baseline {param}={baseline}, but were not compared with each other"
    why = "under-powered: more seeds are needed" if any(c["verdict"] == "under-powered" for c in comparisons) else "no reliable difference"
    if baseline_given:
        return f"no clear winner: no value is reliably better than the baseline {param}={baseline} ({why})"
    others = ", ".join(f"{param}={v}" for v in unsure)
    return f"no clear winner: {param}={baseline} has the best mean but is not reliably better than {others} ({why})"


def _smallest_p_statement(s: int, m: int, alpha: float) -> str:
    if s <= 0:
        return "no paired seeds"
    p = st.min_signflip_p(s)
    text = (f"With {s} paired seed{'s' if s != 1 else ''}, an exact sign-flip test cannot give p below {p:.3g} (2/2^{s})"
            + (f", or {min(1.0, m * p):.3g} after Holm over {m} comparisons" if m > 1 else ""))
    if min(1.0, m * p) > alpha:
        need = next(n for n in range(1, 64) if min(1.0, m * st.min_signflip_p(n)) <= alpha)
        text += f": no distribution-free verdict is possible at alpha={alpha:g}; that needs at least {need} seeds."
    else:
        text += "."
    return text
