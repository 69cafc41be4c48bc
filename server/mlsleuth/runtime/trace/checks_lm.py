"""``trace`` checks on language-model batches: ``labels`` against ``input_ids``, the pad positions and ``attention_mask``.

They read ``lm_batches``, what :mod:`mlsleuth.runtime.child.trace_lm_batches` measured on the
first training batches of a model called with token ids (``trace``'s child, or the Hugging
Face callback in :mod:`mlsleuth.integrations.hf`). Registered with the other trace checks
(``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check

LM_CHECKS = ("lm-labels-double-shifted", "lm-targets-unshifted", "lm-pad-labels-scored", "lm-batch-without-targets")


def _lm(run: Any) -> dict:
    return run.data.get("lm_batches") or {}


def _call_site(run: Any, rec: dict) -> dict[str, Any]:
    """``path``/``line`` of the user's loss call, beside the traced script's path when it is in the script's folder."""
    path, line = rec.get("path"), rec.get("line")
    if not path or not line:
        return {}
    script_dir = run.data.get("script_dir")
    if script_dir and run.path and path.startswith(script_dir.rstrip(os.sep) + os.sep):
        return {"path": os.path.join(os.path.dirname(run.path), os.path.relpath(path, script_dir)), "line": line}
    return {"path": path, "line": line}


def _shifted(rates: list, high: int, low: int) -> list:
    """The batches whose match rate at index ``high`` is at least LM_SHIFT_MATCH while the one at ``low`` is at most LM_SHIFT_MISMATCH."""
    return [r for r in rates if r[high] >= T.LM_SHIFT_MATCH and r[low] <= T.LM_SHIFT_MISMATCH]


def _pattern(rates: list, high: int, low: int) -> list | None:
    """The flagged batches, when they are at least LM_SHIFT_BATCHES of the measured ones (else None)."""
    hits = _shifted(rates, high, low)
    return hits if rates and hits and len(hits) >= T.LM_SHIFT_BATCHES * len(rates) else None


@runtime_check("lm-labels-double-shifted", tool="trace", category="loss", severity="error")
def lm_labels_double_shifted(run: Any) -> Iterator[Found]:
    """Labels already shifted by one are given to a causal LM that shifts them again.

    What it finds: a `*ForCausalLM` / `*LMHeadModel` model is called with `labels=` whose scored entries equal the
    NEXT position's input token (`labels[:, t] == input_ids[:, t + 1]`) in at least {pct.LM_SHIFT_MATCH}% of the
    positions where the two tokens differ, and their own position's token in at most {pct.LM_SHIFT_MISMATCH}%, on at
    least {pct.LM_SHIFT_BATCHES}% of the measured training batches. These models shift `labels` by one inside their
    forward, so the targets end up two tokens ahead.
    Why it matters: the model is trained to predict the token after next. The loss still falls (the task is
    learnable, just harder), so nothing looks broken, but generation is poor and the perplexity is not comparable.
    How to confirm: print `input_ids[0, :8]` and `labels[0, :8]` of one batch: for a causal LM they should be equal
    (the model shifts), not offset by one.
    What to do instead: pass `labels = input_ids` (with pads and prompt tokens set to -100) and let the model shift;
    keep the `x = seq[:-1], y = seq[1:]` split only for a hand-written loss on `outputs.logits`.
    """
    lm = _lm(run)
    ds = lm.get("double_shift") or {}
    rates = ds.get("rates") or []
    hits = _pattern(rates, 2, 1)
    if not hits:
        return
    first = hits[0]
    yield Found(
        f"labels are shifted twice: {lm.get('model') or 'the model'} shifts labels by one itself, and the labels it gets already are "
        f"the next tokens, so it learns to predict two tokens ahead",
        observation=f"on {len(hits)} of {len(rates)} measured training batches the scored labels equal input_ids at the next position "
                    f"(first at step {first[0]}: {fmt(100 * first[2])}% next-token matches, {fmt(100 * first[1])}% same-position matches)",
        next_test="print(batch['input_ids'][0, :8], batch['labels'][0, :8]): for a causal LM the two rows should be equal, not offset by one",
        fix="pass labels = input_ids (pads and prompt tokens set to -100) and let the model shift them; do not pre-shift",
        measurements={"model": lm.get("model"), "batches": len(rates), "flagged": len(hits), "rates": rates[:10]},
        module=lm.get("model") or "(model)", step=first[0], phase="loss")


@runtime_check("lm-targets-unshifted", tool="trace", category="loss", severity="error")
def lm_targets_unshifted(run: Any) -> Iterator[Found]:
    """A hand-written next-token loss scores each position's logits against that position's own input token.

    What it finds: a causal LM (`*ForCausalLM`, `*LMHeadModel`) is called with token ids and no `labels=`, and the
    cross-entropy that follows has a class-index target as large as those ids whose scored entries equal the same
    position's input token in at least {pct.LM_SHIFT_MATCH}% of the positions where neighbouring tokens differ (and
    the next position's token in at most {pct.LM_SHIFT_MISMATCH}%), on at least {pct.LM_SHIFT_BATCHES}% of the measured
    batches. Typical in a `Trainer.compute_loss` override that scores `outputs.logits` against `labels` (a copy of the
    input ids) without `logits[:, :-1]` / `labels[:, 1:]`.
    Why it matters: position t sees token t through causal attention, so the model learns to copy its input: the loss
    collapses towards zero while the model learns nothing about the next token.
    How to confirm: recompute the loss with `logits[:, :-1]` against `labels[:, 1:]`; it is far higher.
    What to do instead: shift before the loss (`logits[:, :-1].reshape(-1, V)` against `labels[:, 1:].reshape(-1)`), or
    pass `labels=` to the model and use `outputs.loss`.
    """
    lm = _lm(run)
    lt = lm.get("loss_targets") or {}
    rates = lt.get("rates") or []
    if not lt.get("causal"):
        return
    hits = _pattern(rates, 1, 2)
    if not hits:
        return
    first = hits[0]
    yield Found(
        f"next-token loss without a shift: the logits of {lt.get('model') or 'the causal LM'} at each position are scored against "
        f"that position's own input token, so the model learns to copy its input",
        observation=f"on {len(hits)} of {len(rates)} cross-entropy calls after the model's forward, the scored targets equal input_ids "
                    f"at the same position (first at step {first[0]}: {fmt(100 * first[1])}% same-position matches, "
                    f"{fmt(100 * first[2])}% next-token matches)",
        next_test="recompute the loss with logits[:, :-1] against labels[:, 1:]: it is far higher than the logged loss",
        fix="shift before the loss: F.cross_entropy(logits[:, :-1].reshape(-1, V), labels[:, 1:].reshape(-1)), or pass labels= "
            "to the model and use outputs.loss",
        measurements={"model": lt.get("model"), "calls": len(rates), "flagged": len(hits), "rates": rates[:10]},
        module="(loss)", step=first[0], phase="loss", **_call_site(run, lt))


def pad_labels_scored(run: Any) -> bool:
    """The batches carry real labels at attention-masked positions, in the share `lm-pad-labels-scored` reports."""
    ps = _lm(run).get("pad_scored") or {}
    scored, wrong, rows = ps.get("scored", 0), ps.get("scored_masked", 0), ps.get("rows", 0)
    return bool(scored and wrong and wrong > rows and wrong / scored >= T.LM_PAD_LABEL_SHARE)


@runtime_check("lm-pad-labels-scored", tool="trace", category="data", severity="warning")
def lm_pad_labels_scored(run: Any) -> Iterator[Found]:
    """Positions that attention_mask marks as padding carry real labels (not -100), so the loss trains on padding.

    What it finds: in the training batches a model receives with `labels=` and `attention_mask=`, labels other
    than -100 at positions where `attention_mask` is 0 make up at least {pct.LM_PAD_LABEL_SHARE}% of the scored
    labels, more than one per row on average. Typical of `labels = input_ids.clone()` on padded batches, or a
    collator that pads `labels` with the pad id.
    Why it matters: Hugging Face losses skip only -100. Pad positions are the easiest tokens to predict, so the loss
    falls fast and looks healthy while the real tokens are learnt slowly, and the model learns to emit pad or
    end-of-text runs.
    How to confirm: print `(batch['labels'][batch['attention_mask'] == 0] != -100).sum()` for one batch.
    What to do instead: `labels = labels.masked_fill(attention_mask == 0, -100)` in the collator, or use
    `DataCollatorForLanguageModeling(tokenizer, mlm=False)` / `DataCollatorForSeq2Seq`, which do it.
    """
    if not pad_labels_scored(run):
        return
    lm = _lm(run)
    ps = lm.get("pad_scored") or {}
    scored, wrong, rows = ps.get("scored", 0), ps.get("scored_masked", 0), ps.get("rows", 0)
    share = wrong / scored
    pad = lm.get("pad_token_id")
    value = ps.get("label_example")
    pad_note = f" ({fmt(100 * ps.get('pad_labels', 0) / wrong)}% of them are the pad id {pad})" if pad is not None else ""
    yield Found(
        f"pad positions are trained as targets: {fmt(100 * share)}% of the scored labels sit where attention_mask is 0 "
        f"(label {value} there, not -100)",
        observation=f"over {ps.get('batches')} training batch(es): {wrong} of {ps.get('masked')} padded positions carry a label other "
                    f"than -100{pad_note}; the model's loss counts them among its {scored} scored labels",
        next_test="print((batch['labels'][batch['attention_mask'] == 0] != -100).sum()) for one batch: it should be 0",
        fix="set padded labels to -100 (labels.masked_fill(attention_mask == 0, -100)) or use DataCollatorForLanguageModeling(tokenizer, mlm=False)",
        measurements={"scored_at_padding": wrong, "padded_positions": ps.get("masked"), "scored": scored, "share": share,
                      "pad_token_id": pad},
        module="(training data)", step=ps.get("first_step"), phase="data")


@runtime_check("lm-batch-without-targets", tool="trace", category="data", severity="warning")
def lm_batch_without_targets(run: Any) -> Iterator[Found]:
    """A training batch whose labels are all -100: nothing is left to score, so its loss is NaN (or a silent 0).

    What it finds: a training batch a model receives with `labels=` in which every label is -100, typically
    prompt masking plus truncation that cuts off every answer token of a short batch.
    Why it matters: a mean over zero targets is 0/0: the loss is NaN and one such step poisons the weights, or the
    trainer reports 0.0 and the step silently trains nothing. Rows without targets also waste compute.
    How to confirm: count `(labels != -100).sum(dim=1)` per example of the dataset after truncation; look for zeros.
    What to do instead: drop (or re-truncate from the left) examples whose answer does not survive `max_length`,
    raise `max_length`, or truncate the prompt instead of the answer.
    """
    lm = _lm(run)
    lab = lm.get("labeled") or {}
    steps = lm.get("without_targets") or []
    if not steps or not lab.get("batches"):
        return
    ignored = lab.get("ignored", 0) / lab["positions"] if lab.get("positions") else None
    yield Found(
        f"{len(steps)} training batch(es) had every label at -100: with nothing to score, the loss of such a batch is NaN "
        f"(or reported as 0) and the step trains nothing",
        observation=f"batch at step {steps[0]} had no label other than -100; over {lab['batches']} measured batches "
                    f"{fmt(100 * ignored)}% of the labels were -100 and {lab.get('rows_without_targets', 0)} of {lab.get('rows', 0)} "
                    f"rows had no target left",
        next_test="count (labels != -100).sum(dim=1) for every example after truncation and look for zeros",
        fix="drop examples whose answer tokens do not survive max_length, raise max_length, or truncate the prompt instead of the answer",
        measurements={"batches_without_targets": len(steps), "steps": steps[:20], "ignored_share": ignored,
                      "rows_without_targets": lab.get("rows_without_targets"), "rows": lab.get("rows")},
        module="(training data)", step=steps[0], phase="data")
