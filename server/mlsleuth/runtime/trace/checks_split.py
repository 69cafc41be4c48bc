"""``trace`` check on the split between training and evaluation data: evaluation inputs that are near-copies of
training inputs.

It reads ``split_overlap``, what :mod:`mlsleuth.runtime.child.trace_split_overlap` measured on the traced model's
training and evaluation forwards. Registered with the other trace checks (``checks.py`` imports this module).
Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check


@runtime_check("eval-inputs-near-training-inputs", tool="trace", category="data", severity="warning")
def eval_inputs_near_training_inputs(run: Any) -> Iterator[Found]:
    """Evaluation inputs are near-copies of training inputs.

    What it finds: of the rows the traced model was evaluated on (forwards under no_grad), at least
    {pct.SPLIT_NEAR_COPY_SHARE}% lie closer to some training row than {pct.SPLIT_NEAR_COPY_DISTANCE}% of the median
    distance between two training rows, without being exact copies (rows compared flat, on a sample of up to 4096
    training rows). Exact copies are not counted: evaluating on the training set itself gives them too. Not run
    on reinforcement-learning runs (an agent acts on states next to those it trains on).
    Why it matters: near-copies come from making samples before splitting them: noisy or augmented versions,
    oversampled or interpolated rows (SMOTE), overlapping windows of one recording. The model is then scored on
    data it has in effect seen, and the evaluation overstates how well it generalises (even labels that are pure
    noise get scored well).
    How to confirm: for a few evaluation rows, find the nearest training row and print both: they differ only
    by noise or a small shift. Re-run with the split done first: the evaluation score drops.
    What to do instead: split first (by recording, patient or source where samples are related), then augment,
    oversample or window the training part only.
    """
    so = run.data.get("split_overlap")
    if not so or not so.get("eval_rows") or ((run.data.get("rl") or {}).get("env_steps") or 0) > 0:
        return  # reinforcement learning acts on states next to the ones it trains on: no split to leak across
    near = (so.get("near_copies") or {}).get(str(T.SPLIT_NEAR_COPY_DISTANCE), 0)
    share = near / so["eval_rows"]
    if share >= T.SPLIT_NEAR_COPY_SHARE:
        yield Found(
            f"{share:.0%} of the evaluation inputs are near-copies of training inputs: the data was probably augmented, "
            f"oversampled or windowed before it was split, so the evaluation scores data the model has in effect seen",
            observation=f"{near} of {so['eval_rows']} rows of the evaluation forwards (from step {so.get('eval_step')}) lie within "
                        f"{T.SPLIT_NEAR_COPY_DISTANCE:g} x the median distance between two training rows ({fmt(so.get('pair_distance_median'))}) "
                        f"of one of {so.get('train_rows')} training rows, without being identical; median nearest distance "
                        f"{fmt(so.get('nearest_median'))} ({so.get('features')} features per row)",
            next_test="for a few evaluation rows print the nearest training row (torch.cdist(x_eval, x_train).argmin(1)): they differ "
                      "only by noise or a shift; split before augmenting and compare the evaluation score",
            fix="split first (by source where samples are related), then augment, oversample or window only the training part",
            measurements=so, step=so.get("eval_step"), phase="evaluation")
