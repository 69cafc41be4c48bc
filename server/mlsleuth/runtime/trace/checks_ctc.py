"""``trace`` checks on CTC losses' targets. Reads ``loss_calls["ctc_loss"]`` (child: ``trace_log_probs.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check


@runtime_check("ctc-target-is-blank", tool="trace", category="loss", severity="error")
def ctc_target_is_blank(run: Any) -> Iterator[Found]:
    """A CTC target label has the blank's class id.

    What it finds: label ids equal to the loss's `blank` index (0 unless set) among the targets of F.ctc_loss /
    nn.CTCLoss on the first training calls; for padded `(N, S)` targets only the first `target_lengths[i]` entries
    of each row count, since the padding may use any id.
    Why it matters: CTC reserves the blank for "no symbol here"; a real label with the same id is trained as a
    blank. Every occurrence of that symbol disappears from the decoded output, the top class id is never used,
    and the loss can even fall below zero, while nothing raises: an encoder that numbers the alphabet from 0
    (`enumerate(alphabet)`) next to a model whose class 0 is the blank, or a blank moved to the last class without
    moving the loss's `blank=`.
    How to confirm: `print((targets == blank).sum())` for one batch (inside target_lengths), and check the label
    map: the first symbol's id against the blank index.
    What to do instead: number the labels from 1 when the blank is 0 (`{{c: i + 1 for i, c in enumerate(alphabet)}}`,
    `num_classes = len(alphabet) + 1`), or pass the blank's real index to `CTCLoss(blank=...)`.
    """
    rec = (run.data.get("loss_calls") or {}).get("ctc_loss") or {}
    hits, total, blank = rec.get("blank_targets"), rec.get("target_ids"), rec.get("blank")
    if not hits or not total:
        return
    yield Found(
        f"ctc_loss targets contain the blank's id {blank}: those labels are trained as 'no symbol' and can never be decoded",
        observation=f"{hits} of {total} target labels ({100 * hits / total:.1f}%) on the inspected training calls were {blank}, "
                    f"the loss's blank index (first at step {rec.get('blank_target_step')})",
        next_test=f"print((targets == {blank}).sum()) for one batch and the label map's first entries: which symbol has id {blank}?",
        fix=f"number the labels from {1 if blank == 0 else 0} so none collides with the blank (blank={blank}), or pass the blank's "
            f"real index to CTCLoss(blank=...)",
        measurements={"blank": blank, "blank_targets": hits, "target_ids": total},
        module="(loss input)", step=rec.get("blank_target_step"), phase="loss")
