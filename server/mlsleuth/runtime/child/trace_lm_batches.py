"""Language-model batches: how ``labels`` relate to ``input_ids``, the pad positions and ``attention_mask``.

Child side (stdlib + torch only, no sibling imports, so the Hugging Face callback in
``mlsleuth.integrations.hf`` can use it in the user's own process too). Measures, on the
first training batches:

* every training call of a top-level model that receives token ids (``input_ids=`` or a 2-D
  integer first argument): its class, whether it is a causal LM that shifts ``labels`` itself
  (``*ForCausalLM``, ``*LMHeadModel``), and, when it receives ``labels=``:

  - how often ``labels[:, t]`` equals ``input_ids[:, t]`` and ``input_ids[:, t + 1]`` (over the
    scored positions where those two tokens differ): a causal LM given labels already shifted by
    one shifts them again and learns to predict two tokens ahead;
  - the scored labels (not -100) at positions ``attention_mask`` marks as padding;
  - the share of -100 labels and the batches where every label is -100 (no target left);

* every ``F.cross_entropy`` whose class-index target has as many entries as the token ids of the
  last such model call, when that model got no ``labels=``: the same two match rates, for a
  hand-written next-token loss that scores ``logits[:, t]`` against ``input_ids[:, t]``.

Only measurements; the parent decides (``mlsleuth/runtime/trace/checks_lm.py``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

WATCH_BATCHES = 50  # batches measured (and match rates kept) (a few integer comparisons on [batch, length] each)
MIN_POSITIONS = 8  # informative positions a batch needs before its match rates count
IGNORE_INDEX = -100
CAUSAL_SUFFIXES = ("ForCausalLM", "LMHeadModel")
_HERE = os.path.dirname(os.path.abspath(__file__))


def causal_lm(module: Any) -> bool:
    """A decoder-only language model that shifts ``labels`` by one inside its forward (Hugging Face naming)."""
    name = type(module).__name__
    config = getattr(module, "config", None)
    if getattr(config, "is_encoder_decoder", False):
        return False
    return name.endswith(CAUSAL_SUFFIXES) and "DoubleHeads" not in name


def _caller() -> tuple[str | None, int | None]:
    """The user's file and line calling the patched function (the first frame outside torch, transformers and this harness)."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_HERE) and f"{os.sep}torch{os.sep}" not in path and f"{os.sep}transformers{os.sep}" not in path:
            return path, frame.f_lineno
        frame = frame.f_back
    return None, None


def _token_ids(args: tuple, kwargs: dict) -> Any:
    import torch

    ids = kwargs.get("input_ids")
    if ids is None and args:
        ids = args[0]
    if isinstance(ids, torch.Tensor) and ids.dim() == 2 and not ids.is_floating_point() and ids.numel():
        return ids
    return None


def match_rates(targets: Any, ids: Any, ignore: int = IGNORE_INDEX, mask: Any = None) -> tuple[float, float, int] | None:
    """(share equal to the same position's id, share equal to the next position's id, positions compared).

    Over the scored targets (not ``ignore``) of positions ``t < length - 1`` where ``ids[:, t] != ids[:, t + 1]``
    (and, given an attention mask of the same shape, where position ``t + 1`` is not padding), so runs of one
    token (padding) cannot make both rates high. None when fewer than MIN_POSITIONS remain.
    """
    import torch

    t = targets[:, :-1]
    here, after = ids[:, :-1], ids[:, 1:]
    informative = (t != ignore) & (here != after)
    if isinstance(mask, torch.Tensor) and mask.shape == ids.shape:
        informative &= mask[:, 1:] != 0
    n = int(informative.sum())
    if n < MIN_POSITIONS:
        return None
    same = int(((t == here) & informative).sum()) / n
    nxt = int(((t == after) & informative).sum()) / n
    return same, nxt, n


class LMBatchWatch:
    """Owns the ``F.cross_entropy`` patch, the model-call measurements and their summary (``result()``).

    ``observe_model_call`` and ``observe_loss`` are public so that a caller outside the script runner (the
    Hugging Face callback) can feed them; ``step()`` gives the current optimizer step.
    """

    def __init__(self, step=lambda: 0) -> None:
        self.step = step
        self.batches = 0  # training model calls with token ids measured
        self.model: str | None = None
        self.causal = False
        self.pad_token_id: int | None = None
        self.labeled = {"batches": 0, "positions": 0, "ignored": 0, "rows": 0, "rows_without_targets": 0}
        self.without_targets: list[int] = []  # steps of batches whose every label is -100
        self.double_shift: dict = {"batches": 0, "rates": []}  # [step, same-position match, next-position match] per batch
        self.pad_scored = {"batches": 0, "affected": 0, "masked": 0, "scored_masked": 0, "scored": 0, "rows": 0,
                           "pad_labels": 0, "first_step": None, "label_example": None}
        self.loss_targets: dict = {"calls": 0, "rates": [], "path": None, "line": None, "model": None, "causal": False}
        self.non_finite_loss: dict | None = None  # the first non-finite loss a model returned from labels=
        self._last: tuple | None = None  # (ids, model name, causal, got labels) of the last training model call
        self._handle: Any = None

    # -- wiring ---------------------------------------------------------------------
    def start(self, runner: Any) -> None:
        """Watch every top-level model's calls with their keyword inputs (a global forward hook)."""
        from torch.nn.modules import module as module_mod

        watch = self
        self.step = lambda: runner.step

        def hook(module, args, kwargs, output):
            if runner.module_stack or runner._muted or id(module) not in runner._root_ids:
                return
            try:
                watch.observe_model_call(module, args, kwargs, output)
            except Exception:  # noqa: BLE001 - never break the user's forward; recorded as an observer error
                runner.record_error("trace", "lm batches")
            return

        self._handle = module_mod.register_module_forward_hook(hook, with_kwargs=True)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self._last = None

    def patches(self) -> list:
        import torch.nn.functional as F

        return [(F, "cross_entropy", self._wrap_cross_entropy())]

    def _wrap_cross_entropy(self):
        watch = self

        def factory(runner, original):
            def wrapped(*args, **kwargs):
                if not runner._muted and watch._last is not None:
                    try:
                        watch.observe_loss(args, kwargs)
                    except Exception:  # noqa: BLE001 - never break the user's loss call; recorded as an observer error
                        runner.record_error("trace", "lm batches loss")
                return original(*args, **kwargs)

            return wrapped

        return factory

    # -- measurements ----------------------------------------------------------------
    def observe_model_call(self, module: Any, args: tuple, kwargs: dict, output: Any) -> None:
        import torch

        if not torch.is_grad_enabled() or not getattr(module, "training", False) or self.batches >= WATCH_BATCHES:
            return
        ids = _token_ids(args, kwargs)
        if ids is None:
            return
        self.batches += 1
        causal = causal_lm(module)
        name = type(module).__name__
        self.model = self.model or name
        self.causal = self.causal or causal
        config = getattr(module, "config", None)
        pad = getattr(config, "pad_token_id", None)
        if isinstance(pad, int) and self.pad_token_id is None:
            self.pad_token_id = pad
        labels = kwargs.get("labels")
        got_labels = isinstance(labels, torch.Tensor)
        self._last = (ids.detach(), name, causal, got_labels)
        loss = getattr(output, "loss", None)
        if got_labels and self.non_finite_loss is None and isinstance(loss, torch.Tensor) and loss.numel() == 1:
            value = float(loss.detach())
            if value != value or value in (float("inf"), float("-inf")):
                self.non_finite_loss = {"step": self.step(), "value": value}
        if not got_labels or labels.is_floating_point() or labels.shape != ids.shape:
            return
        with torch.no_grad():
            self._measure_labels(ids.detach(), labels.detach(), kwargs.get("attention_mask"), causal)

    def _measure_labels(self, ids: Any, labels: Any, mask: Any, causal: bool) -> None:
        import torch

        step = self.step()
        lab = self.labeled
        scored = labels != IGNORE_INDEX
        n_scored = int(scored.sum())
        lab["batches"] += 1
        lab["positions"] += int(labels.numel())
        lab["ignored"] += int(labels.numel()) - n_scored
        lab["rows"] += int(labels.shape[0])
        lab["rows_without_targets"] += int((~scored.any(dim=1)).sum())
        if n_scored == 0 and len(self.without_targets) < 50:
            self.without_targets.append(step)
        if causal:
            rates = match_rates(labels, ids, mask=mask)
            if rates is not None:
                self.double_shift["batches"] += 1
                self.double_shift["rates"].append([step, round(rates[0], 4), round(rates[1], 4)])
        if isinstance(mask, torch.Tensor) and mask.shape == ids.shape:
            padded = mask == 0
            n_masked = int(padded.sum())
            ps = self.pad_scored
            ps["batches"] += 1
            ps["masked"] += n_masked
            ps["scored"] += n_scored
            ps["rows"] += int(ids.shape[0])
            if n_masked:
                wrong = padded & scored
                k = int(wrong.sum())
                ps["scored_masked"] += k
                if k:
                    ps["affected"] += 1
                    if ps["first_step"] is None:
                        ps["first_step"] = step
                        ps["label_example"] = int(labels[wrong][0])
                    if self.pad_token_id is not None:
                        ps["pad_labels"] += int((labels[wrong] == self.pad_token_id).sum())

    def observe_loss(self, args: tuple, kwargs: dict) -> None:
        import torch

        if not torch.is_grad_enabled() or self._last is None:
            return
        ids, name, causal, got_labels = self._last
        target = kwargs.get("target", args[1] if len(args) > 1 else None)
        if got_labels or not isinstance(target, torch.Tensor) or target.is_floating_point():
            return  # the model computes its own loss from labels=, or a soft target
        if target.numel() != ids.numel() or self.loss_targets["calls"] >= WATCH_BATCHES:
            return
        ignore = kwargs.get("ignore_index", args[4] if len(args) > 4 else IGNORE_INDEX)
        lt = self.loss_targets
        lt["calls"] += 1
        lt["model"] = lt["model"] or name
        lt["causal"] = causal
        rates = match_rates(target.detach().reshape(ids.shape), ids, ignore if isinstance(ignore, int) else IGNORE_INDEX)
        if rates is None:
            return
        lt["rates"].append([self.step(), round(rates[0], 4), round(rates[1], 4)])
        if lt["path"] is None:
            lt["path"], lt["line"] = _caller()

    def result(self) -> dict[str, Any]:
        return {"batches": self.batches, "model": self.model, "causal": self.causal, "pad_token_id": self.pad_token_id,
                "labeled": self.labeled, "without_targets": self.without_targets, "double_shift": self.double_shift,
                "pad_scored": self.pad_scored, "loss_targets": self.loss_targets, "non_finite_loss": self.non_finite_loss}
