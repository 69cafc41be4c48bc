"""``trace`` check on the batch-order probe: reordering a batch must only reorder the model's outputs.

It reads ``batch_order``, what :mod:`mlsleuth.runtime.child.batch_order` measured on the first captured batch.
Registered with the other trace checks (``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.common import fmt


@runtime_check("batch-order-changes-outputs", tool="trace", category="architecture", severity="error")
def batch_order_changes_outputs(run: Any) -> Iterator[Found]:
    """Reordering the samples of a batch changes each sample's output.

    What it finds: on the first captured training batch, with the model in eval mode and every tensor argument that
    carries the batch (inputs, lengths, masks, ids) rolled by one sample together, the model's output is not the
    first run's output rolled the same way (relative difference above 1e-4); the first module, in call order,
    whose output breaks the order is named. Reported only when the gradient probe (`batch-mixing`) does not
    already report samples mixing, since that finding names the same place.
    Why it matters: with dropout off and batch-norm on running statistics, a sample's output can only depend on
    that sample. When it depends on its position in the batch or on its neighbours, something indexes by batch
    position or pairs per-sample data with the wrong sample: a per-sample mask tiled over attention heads instead
    of interleaved, a positional table sliced by the batch size, lengths or ids reordered apart from their inputs.
    The gradient probe misses these when the mixing travels through integers or masks rather than the inputs.
    How to confirm: in eval mode under no_grad, compare `model(x[p])` with `model(x)[p]` for a permutation `p`
    applied to every per-sample argument; then hook the named module and compare its outputs the same way.
    What to do instead: keep per-sample tensors aligned with their samples through every reshape: `repeat_interleave`
    (not `repeat`) when expanding a per-sample mask over heads, index tables by position within a sequence, never by
    batch position.
    """
    bo = run.data.get("batch_order") or {}
    if not bo.get("changed"):
        return
    bd = run.data.get("batch_dependence") or {}
    if not bd.get("skipped") and bd.get("leak", 0) > 0:
        return  # batch-mixing reports it, with the gradient evidence
    module = bo.get("first_module")
    where = f"first in the output of '{module}'" if module else "in the model's output"
    yield Found(
        f"reordering the samples of a batch changes each sample's output ({where}): a sample's result depends on its "
        "position in the batch or on the other samples (per-sample masks, lengths or tables paired with the wrong sample)",
        observation=f"in eval mode, with every per-sample argument rolled by one sample, the output differs from the first run's output "
                    f"rolled the same way by {fmt(bo.get('mismatch', 0.0))} (relative; batch of {bo.get('batch')})",
        next_test="model.eval(); p = torch.roll(torch.arange(B), 1); with torch.no_grad(): compare model(*[t[p] for t in per_sample_args]) "
                  "with model(*per_sample_args)[p]; hook the named module to see where they part",
        fix="keep per-sample tensors aligned with their samples: repeat_interleave (not repeat) over heads; index tables by "
            "position in the sequence, not in the batch",
        measurements=bo, module=module or bo.get("root"), step=0, phase="forward")
