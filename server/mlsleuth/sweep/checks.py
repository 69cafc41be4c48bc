"""Documentation of every finding ``mlsleuth sweep`` emits (tool ``sweep``).

Import-light: only the catalog is imported, so ``mlsleuth rules`` can list
these without numpy.
"""

from __future__ import annotations

from mlsleuth.catalog import RuleDoc, parse_doc, register

TOOL = "sweep"

_ENTRIES: list[tuple[str, str, str, str]] = [
    ("sweep-reliably-better", "hyperparameter", "info", """
    A parameter value beats the baseline consistently across seeds.

    What it finds: a value whose paired differences from the baseline value (same seed, different
    value) are significant after Holm's correction over the values compared in its group, in the
    direction of a better metric. The paired t-test decides by default (`--test signflip` makes the
    exact sign-flip test decide instead).
    Why it matters: one good run proves nothing; seeds alone move results by more than many
    hyperparameter changes. A difference that holds seed by seed, with the multiple comparisons
    accounted for, is the evidence worth acting on.
    How to confirm: rerun both values on fresh seeds (not the ones that produced the verdict) and
    check that the mean difference stays inside the reported interval.
    What to do instead: adopt the value, and report the mean paired difference with its interval
    and the number of seeds that improved, not the best single run.
    """),
    ("sweep-reliably-worse", "hyperparameter", "info", """
    A parameter value loses to the baseline consistently across seeds.

    What it finds: a value whose paired differences from the baseline are significant after Holm's
    correction, in the direction of a worse metric. When the baseline is the best value (the
    default), this is the list of values the sweep can rule out.
    Why it matters: ruling values out with evidence narrows the next sweep; ruling them out from
    one unlucky seed throws away good settings.
    How to confirm: look at the per-seed lines: a value that is worse on every seed by a similar
    amount is a real effect; one that is worse because of a few unstable seeds may be fixable
    (warm-up, clipping).
    What to do instead: drop the value from the next sweep, or investigate why it is unstable if
    the per-seed spread is large.
    """),
    ("sweep-no-reliable-difference", "hyperparameter", "info", """
    No reliable difference between a value and the baseline, with enough seeds to have seen a large one.

    What it finds: a comparison that is not significant after Holm's correction although the seed
    count gives at least even odds of detecting an effect of one standard deviation of the paired
    differences (d_z = 1).
    Why it matters: "not significant" with enough seeds is information: the two settings are
    interchangeable within the reported interval, so pick on cost, speed or simplicity.
    How to confirm: read the interval of the mean difference: if it excludes every difference you
    would care about, the values are equivalent for your purpose; the report also gives the seeds
    needed for 80% power at the observed effect.
    What to do instead: treat the values as equivalent, or run the reported number of seeds if the
    observed effect would matter.
    """),
    ("sweep-under-powered", "reproducibility", "warning", """
    Too few paired seeds to tell whether a value differs from the baseline.

    What it finds: a comparison that is not significant and whose seed count could not reliably
    have detected even a large effect: fewer than two paired seeds, power below 50% at d_z = 1
    (at the first Holm level), or, with the exact test, a seed count whose smallest attainable
    p-value is above alpha (three seeds cannot give an exact two-sided p below 0.25).
    Why it matters: reading "no difference" into an under-powered comparison is the commonest sweep
    mistake; so is reading a difference into it from the best seed.
    How to confirm: the report states the smallest attainable p-value at this seed count and the
    number of seeds needed for 80% power at the observed effect.
    What to do instead: run more seeds, the same seeds for every value (`mlsleuth sweep --plan`
    prints the design), before drawing a conclusion.
    """),
    ("sweep-run-diverged", "numerical", "warning", """
    Runs whose metric ended as NaN or infinity.

    What it finds: runs whose final (or reduced) metric is not finite, grouped by parameter value,
    with how many seeds diverged at that value and at the others.
    Why it matters: a divergence is a result: a value that diverges on some seeds is less stable,
    and silently dropping those runs makes it look better than it is. They are excluded from the
    numeric comparison and reported here instead.
    How to confirm: rerun one diverged seed with anomaly detection (or `mlsleuth nan`) to find the
    step and operation where the first non-finite value appears.
    What to do instead: if divergence grows with the value (typically a learning rate), treat the
    stable range as the usable one; add warm-up or gradient clipping only after finding the cause.
    """),
    ("sweep-run-failed", "environment", "warning", """
    Runs that failed, crashed, were killed or recorded no metric.

    What it finds: runs marked failed/crashed/killed in the export's state column (W&B `State`,
    MLflow `status`, Optuna `state`), or with an empty metric, grouped by parameter value.
    Why it matters: a failure that depends on the value (out of memory at a large batch, a timeout
    at a small learning rate) biases the comparison if the failed runs simply vanish.
    How to confirm: read the failed runs' logs; check whether failures cluster at one value.
    What to do instead: fix or rerun the failed runs with the same seeds so the design stays paired.
    """),
    ("sweep-run-incomplete", "environment", "info", """
    Runs that are still running, queued or were pruned.

    What it finds: runs whose state says they have not finished (running, scheduled, queued) or were
    stopped early by a pruner (Optuna `PRUNED`).
    Why it matters: their metric is a partial result; mixing it with finished runs compares
    different amounts of training.
    How to confirm: check the state column of the export, and the step count of those runs.
    What to do instead: wait for them to finish, or compare on purpose at a fixed step with
    `--step` and `--reduce`.
    """),
    ("sweep-unpaired-seeds", "reproducibility", "warning", """
    Seeds that were not run with every value of the parameter.

    What it finds: seeds missing one or more values in their group; they are used only in the
    comparisons they can pair in, and left out of the trend tests, and listed by name.
    Why it matters: pairing is what cancels seed noise; a seed run with only one value carries no
    paired information, and comparing unpaired runs brings the seed variance back.
    How to confirm: the finding lists, per seed, the values it lacks.
    What to do instead: run the missing (value, seed) combinations; `mlsleuth sweep --plan` prints
    the full design as launcher commands.
    """),
    ("sweep-monotone-trend", "hyperparameter", "info", """
    The metric rises or falls steadily with a numeric parameter.

    What it finds: a significant Page's L trend test with seeds as blocks (exact for up to 8
    values, a normal approximation above), reported with Friedman's omnibus test and the per-seed
    least-squares slope (against log10 of the parameter when the values are log-spaced).
    Why it matters: when the best value sits at the edge of a monotone trend, the optimum is
    probably outside the range that was swept.
    How to confirm: look at the per-seed lines in the plot (`--plot`); the share of seeds with a
    positive slope is in the report.
    What to do instead: extend the sweep past the best edge value, with the same seeds.
    """),
    ("sweep-interior-optimum", "hyperparameter", "info", """
    The metric peaks (or bottoms out) inside the swept range.

    What it finds: a numeric parameter whose best mean value is interior and whose per-seed
    quadratic curvature is significantly in the direction of an optimum (a U shape, or an
    inverted U).
    Why it matters: a trend test summarises a U-shaped response badly, and the useful next step is
    a finer grid around the optimum rather than a wider one.
    How to confirm: the per-seed lines in the plot should bend the same way on most seeds.
    What to do instead: refine the grid around the best value with the same seeds.
    """),
    ("sweep-zscore-recipe", "evaluation", "info", """
    The within-seed z-score recipe, shown for comparison, is miscalibrated.

    What it finds: shown when `--zscore` is given: the popular recipe (standardise the metric
    within each seed across values, then t-test the z-scores across seeds), its Holm-adjusted
    p-values, and the comparisons where it disagrees with the paired test.
    Why it matters: standardising throws away the size of each seed's spread. With two values every
    z-score is +-0.71, the t statistic is infinite whenever all seeds agree, and the false-positive
    rate is 2^(1-S): 25% at three seeds. The benchmark measures it for more values too.
    How to confirm: run `python benchmarks/bench_sweep_calibration.py` and read the false-positive
    column of the z-score recipe next to the paired test's.
    What to do instead: use the paired differences (the default verdicts of `mlsleuth sweep`).
    """),
]

DOCS: dict[str, RuleDoc] = {}
for _rule_id, _category, _severity, _doc in _ENTRIES:
    DOCS[_rule_id] = register(parse_doc(_rule_id, TOOL, _category, _severity, _doc))

VERDICT_RULES = {
    "reliably-better": "sweep-reliably-better",
    "reliably-worse": "sweep-reliably-worse",
    "no-reliable-difference": "sweep-no-reliable-difference",
    "under-powered": "sweep-under-powered",
}
