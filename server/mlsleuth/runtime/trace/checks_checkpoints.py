"""``trace`` checks on checkpoint events: a restore that loads the model's own live tensors, a resumed optimizer
whose LR scheduler starts over.

They read ``checkpoints``, what :mod:`mlsleuth.runtime.child.trace_checkpoints` recorded during the traced steps
and while the script ran on after them (``runtime/child/after_window.py``); :func:`merge_after_window` puts those
records into the trace data (loads with ``strict=False`` after the window also feed
``state-dict-load-matched-nothing``). Registered with the other trace checks (``checks.py`` imports this
module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location


def merge_after_window(payload: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The trace data with the checkpoint watch's records added (a new dict; ``data`` is left as it is)."""
    after = payload.get("after_window")
    if not isinstance(after, dict):
        return data
    loads = [rec for rec in after.get("loads") or [] if isinstance(rec, dict)]
    late_loose = [{k: v for k, v in rec.items() if k not in ("strict", "aliased", "phase")} | {"step": None, "when": "after the traced steps"}
                  for rec in loads if rec.get("phase") == "after" and not rec.get("strict", True)]
    return {**data, "checkpoints": after, "state_dict_loads": list(data.get("state_dict_loads") or []) + late_loose,
            "frozen_moved_after_window": [rec for rec in after.get("frozen_moved") or [] if isinstance(rec, dict)]}


def after_window_line(payload: dict[str, Any]) -> str | None:
    """One line on how the script ran on after the traced steps, for the report's stats (None when it did not)."""
    after = payload.get("after_window")
    if not isinstance(after, dict) or after.get("ran_s") is None:
        return None
    return (f"ran on unobserved for {after['ran_s']:.1f} s after the traced steps to watch checkpoint loads and frozen "
            f"parameters (ended: {after.get('ended')})")


def _when(rec: dict) -> str:
    return "after the traced steps" if rec.get("phase") == "after" else "during the traced steps"


@runtime_check("restored-state-is-live-weights", tool="trace", category="evaluation", severity="error")
def restored_state_is_live_weights(run: Any) -> Iterator[Found]:
    """A "best" state restored with load_state_dict is the model's own live tensors.

    What it finds: a `load_state_dict(state)` call where at least {pct.CHECKPOINT_LIVE_SHARE}% of the given tensors are the
    model's own current tensors under the same key (the same storage): the state was kept as `model.state_dict()`,
    which returns references, not copies. Seen during the traced steps or while the script runs on after them.
    Why it matters: every optimizer step after the "best" epoch changed the kept state too, so restoring it is a
    no-op: the model evaluated or saved as the best one is the last one, and the reported best score cannot be
    reproduced.
    How to confirm: keep `best = model.state_dict()`, take one optimizer step, and compare
    `best[k].data_ptr() == model.state_dict()[k].data_ptr()` (True: the same tensor) or the values (they moved).
    What to do instead: keep a copy: `copy.deepcopy(model.state_dict())` or
    a dict of `v.detach().clone()` per key (or save it to a file when it is the best).
    """
    for rec in (run.data.get("checkpoints") or {}).get("loads") or []:
        given, aliased = rec.get("given_keys") or 0, rec.get("aliased") or 0
        if given and aliased >= T.CHECKPOINT_LIVE_SHARE * given:
            yield Found(
                f"load_state_dict into {rec.get('module')} restored the model's own live tensors: the kept state is a reference "
                f"to the current weights, not a snapshot, so nothing was restored",
                observation=f"{_when(rec)}: {aliased} of the {given} tensors given to load_state_dict share their storage with the "
                            f"model's current tensors of the same name",
                next_test="best = model.state_dict(); optimizer.step(); print(all(best[k].data_ptr() == v.data_ptr() for k, v in "
                          "model.state_dict().items())): True means the 'best' state follows the live weights",
                fix="keep copy.deepcopy(model.state_dict()) (or {k: v.detach().clone() ...}) as the best state",
                measurements=rec, phase="evaluation", **site_location(run, rec))


@runtime_check("resume-without-scheduler-state", tool="trace", category="reproducibility", severity="warning")
def resume_without_scheduler_state(run: Any) -> Iterator[Found]:
    """A resumed optimizer whose LR scheduler starts over.

    What it finds: `optimizer.load_state_dict(state)` restored a trained optimizer (its per-parameter state is not
    empty: a resume), and an LR scheduler built over that optimizer starts from its first epoch
    (`last_epoch` 0 after construction), was never given a `load_state_dict`, and was stepped after the resume.
    Why it matters: the schedule restarts: the learning rate goes back to its warm-up or peak value instead of
    continuing the decay where the interrupted run left it, so a resumed run ends at a different LR and a worse
    loss than an uninterrupted one.
    How to confirm: print `optimizer.param_groups[0]['lr']` just before the interruption and after the first
    resumed epoch: it jumps back instead of continuing.
    What to do instead: save `scheduler.state_dict()` in the checkpoint and call `scheduler.load_state_dict(...)` on
    resume (or build the scheduler with `last_epoch=` the resumed epoch).
    """
    for rec in (run.data.get("checkpoints") or {}).get("resumes") or []:
        fresh = [s for s in rec.get("schedulers") or []
                 if not s.get("restored") and (s.get("epoch_at_build") or 0) <= 0 and (s.get("epoch_now") or 0) > (s.get("epoch_at_build") or 0)]
        if fresh:
            sched = fresh[0]
            yield Found(
                f"the {rec.get('type')} optimizer was resumed from a checkpoint but its {sched['type']} scheduler started over "
                f"from epoch 0: the learning-rate schedule restarts instead of continuing",
                observation=f"{_when(rec)}: optimizer.load_state_dict restored a trained state; the {sched['type']} over it was built "
                            f"at last_epoch={sched.get('epoch_at_build')}, never got load_state_dict, and stepped to "
                            f"last_epoch={sched.get('epoch_now')} after the resume",
                next_test="print(optimizer.param_groups[0]['lr']) before the interruption and after the first resumed epoch: "
                          "it jumps back instead of continuing the schedule",
                fix="save scheduler.state_dict() with the optimizer's and call scheduler.load_state_dict(...) when resuming",
                measurements=rec, phase="setup", **site_location(run, rec))
