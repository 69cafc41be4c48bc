"""``F.ctc_loss``'s input checked the way ``nll_loss``'s is, and its targets against the blank (child side).

CTC, like NLL, takes log-probabilities and does not normalise them: raw per-frame scores train without an error
while the loss no longer measures how likely the label sequence is. The first calls' inputs are checked: a
log-softmax output has a logsumexp of 0 over the class axis (the last one, ``(T, N, C)``). The record goes into the
observer's ``loss_calls["ctc_loss"]``, beside ``nll_loss``'s, and the ``nll-loss-on-logits`` check reads both.
The targets of the same calls (within ``target_lengths`` when they are padded) are counted where they equal the blank
index: a label that shares the blank's id is trained as "no symbol" and never decoded (``ctc-target-is-blank``).
"""

from __future__ import annotations

from typing import Any

from observer import call_arg

MAX_CALLS_INSPECTED = 20
TOLERANCE = 1e-2


def ctc_patch(loss_calls: dict, where) -> tuple:
    """A patch ``(owner, name, factory)`` for the observer's patch list; records into ``loss_calls``."""
    import torch.nn.functional as F

    def factory(runner, original):
        def wrapped(*args, **kwargs):
            if not runner._muted:
                try:
                    _record(loss_calls, runner, where, args, kwargs)
                except Exception:  # noqa: BLE001 - never break the user's loss call; the failure is reported
                    runner.record_error("trace", "ctc_loss patch")
            return original(*args, **kwargs)

        return wrapped

    return (F, "ctc_loss", factory)


def _record(loss_calls: dict, runner: Any, where, args: tuple, kwargs: dict) -> None:
    import torch

    x = args[0] if args else kwargs.get("log_probs")
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.dim() < 2 or x.shape[-1] < 2:
        return
    if not torch.is_grad_enabled():
        return  # training calls only, as for the other losses
    rec = loss_calls.get("ctc_loss")
    if rec is None:
        rec = loss_calls["ctc_loss"] = {"calls": 0, "non_log_prob_inputs": 0, "step": runner.step, "where": where(runner),
                                        "input_shape": list(x.shape)}
    rec["calls"] += 1
    if rec["calls"] > MAX_CALLS_INSPECTED:
        return
    _record_blank_targets(rec, runner, args, kwargs)
    lse = torch.logsumexp(x.detach().float(), dim=-1)
    worst = float(lse.abs().max()) if lse.numel() else 0.0
    if worst > TOLERANCE:
        rec["non_log_prob_inputs"] += 1
        rec["max_abs_logsumexp"] = max(worst, rec.get("max_abs_logsumexp", 0.0))


def _record_blank_targets(rec: dict, runner: Any, args: tuple, kwargs: dict) -> None:
    import torch

    targets = call_arg(args, kwargs, 1, "targets")
    lengths = call_arg(args, kwargs, 3, "target_lengths")
    blank = call_arg(args, kwargs, 4, "blank", 0)
    if not isinstance(targets, torch.Tensor) or targets.is_floating_point() or not isinstance(blank, int):
        return
    t = targets.detach()
    if t.dim() == 2 and isinstance(lengths, torch.Tensor) and lengths.numel() == t.shape[0]:
        valid = torch.arange(t.shape[1], device=t.device)[None, :] < lengths.detach().to(t.device)[:, None]
        t = t[valid]  # padded targets: only the first target_lengths[i] entries of row i are labels
    elif t.dim() != 1:
        return
    rec["blank"] = blank
    rec["target_ids"] = rec.get("target_ids", 0) + int(t.numel())
    hits = int((t == blank).sum())
    if hits:
        rec["blank_targets"] = rec.get("blank_targets", 0) + hits
        rec.setdefault("blank_target_step", runner.step)
