"""Embeddings whose padding row is looked up as a real id (child side; stdlib + torch).

``nn.Embedding(..., padding_idx=p)`` gives row ``p`` no gradient: it is meant for a pad token that fills the end of
short sequences. When the embedding is fed one id per sample (a 1-D index tensor, or ``(N, 1)``: a class, user,
relation or entity id), or one id per field of a shared table with per-field offsets (``(N, F)`` whose columns hold
disjoint id ranges), there is no sequence to pad, so an id equal to ``p`` that occurs there is a real item whose
row never learns. On the first ``STEPS`` optimizer steps, each training forward of an embedding with a padding index
and such an input is counted, with how many of its ids hit the padding row.
"""

from __future__ import annotations

from typing import Any

from trace_zero_outputs import STEPS  # the generic observer sees module calls on these first steps only
MAX_MODULES = 200
MIN_ROWS = 8  # rows of an (N, F) batch needed before its columns' ranges say "fields", not "positions"
MAX_FIELDS = 64


def _field_offsets(ids: Any) -> bool:
    """``(N, F)`` ids of F fields that share one table through per-field offsets (a factorization machine or CTR
    model: field f's ids lie in ``[offset_f, offset_f + size_f)``): the columns' value ranges are pairwise disjoint,
    so no column is padding for another. Token sequences share one vocabulary across positions, so their columns'
    ranges overlap (and padding fills several columns)."""
    n, fields = ids.shape
    if n < MIN_ROWS or not 2 <= fields <= MAX_FIELDS:
        return False
    low, high = ids.min(dim=0).values.tolist(), ids.max(dim=0).values.tolist()
    spans = sorted(zip(low, high))
    return all(prev_high < next_low for (_, prev_high), (next_low, _) in zip(spans, spans[1:]))


class PaddingRowWatch:
    def __init__(self) -> None:
        self.modules: dict[str, dict] = {}

    def on_forward(self, runner: Any, module: Any, inputs: tuple) -> None:
        import torch

        if runner.step >= STEPS or not module.training or not torch.is_grad_enabled():
            return
        if not isinstance(module, torch.nn.Embedding) or module.padding_idx is None:
            return
        ids = inputs[0] if inputs else None
        if not isinstance(ids, torch.Tensor) or ids.is_floating_point() or ids.numel() < 2:
            return
        if not (ids.dim() == 1 or (ids.dim() == 2 and (ids.shape[1] == 1 or _field_offsets(ids)))):
            return  # sequences: a padding row is what they need
        if not module.weight.requires_grad:
            return  # a frozen table: no row learns anyway
        is_root = any(m is module for m in runner.roots)  # e.g. a model whose forward() is called directly
        name = runner.root_label(module) if is_root else runner.module_name(module)
        if not is_root and name == type(module).__name__:
            return  # outside every traced model: no stable name to report
        rec = self.modules.get(name)
        if rec is None:
            if len(self.modules) >= MAX_MODULES:
                return
            rec = self.modules[name] = {"padding_idx": int(module.padding_idx), "num_embeddings": int(module.num_embeddings),
                                        "calls": 0, "calls_with_pad": 0, "ids": 0, "pad_ids": 0, "steps": [],
                                        "input_shape": list(ids.shape)}
        hits = int((ids.detach() == module.padding_idx).sum())
        rec["calls"] += 1
        rec["ids"] += int(ids.numel())
        if hits:
            rec["calls_with_pad"] += 1
            rec["pad_ids"] += hits
            if runner.step not in rec["steps"]:
                rec["steps"].append(runner.step)

    def result(self) -> list[dict]:
        return [{"module": n, **r} for n, r in self.modules.items() if r["calls_with_pad"] >= 2][:10]
