"""``trace`` check on the global random seed set again, to a value it already had, while the model trains.

It reads ``seeds``, what :mod:`mlsleuth.runtime.child.trace_seeds` recorded. Registered with the other trace
checks (``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location

LIBRARY_CALL = {"torch": "torch.manual_seed", "random": "random.seed"}


def _sites(run: Any, sites: list) -> str:
    shown = []
    for path, line in sites:
        where = site_location(run, {"path": path, "line": line})
        shown.append(f"{os.path.basename(where.get('path') or path)}:{line}")
    return " called from ".join(shown)


@runtime_check("global-seed-reset-during-training", tool="trace", category="reproducibility", severity="warning")
def global_seed_reset_during_training(run: Any) -> Iterator[Found]:
    """The global seed is reset to the same value mid-training.

    What it finds: ``torch.manual_seed`` (directly or through a ``set_seed``/``seed_everything`` helper) or
    ``random.seed`` called with a seed it was already given, after the optimizer's first step, and the same
    optimizer stepping again afterwards. A private ``torch.Generator`` reseeded on purpose is not counted, nor is a
    seed that changes with the epoch, nor a new run with a new optimizer (a new fold).
    Why it matters: the global generator rewinds to the same state, so what it draws next replays what it drew
    after the last reset: the shuffled batch order, dropout masks, random augmentations and noise samples repeat
    every epoch (or every step). Training sees one fixed augmented copy of the data, and nothing fails.
    How to confirm: print the first few indices of the shuffled loader (or one dropout mask) at the start of two
    epochs: they are identical.
    What to do instead: seed once at the start of the run; to make each epoch reproducible, seed with a value that
    changes (``seed + epoch``), or give the sampler its own ``torch.Generator``.
    """
    repeats = (run.data.get("seeds") or {}).get("repeats") or []
    if not repeats:
        return
    rec, others = repeats[0], repeats[1:]  # torch's first: it drives shuffling and dropout
    call = LIBRARY_CALL.get(rec.get("library"), "the seed function")
    steps = rec.get("steps") or []
    also = "".join(f"; {LIBRARY_CALL.get(o.get('library'), '?')}({o.get('seed')}) is reset too, at "
                   f"{_sites(run, (o.get('sites') or [])[:1])}" for o in others)
    yield Found(
        f"{call}({rec.get('seed')}) is called again with the same seed while the model trains: the global generator "
        f"rewinds, so shuffling, dropout and augmentation replay the same draws after each reset",
        observation=f"{rec.get('resets')} reset(s) to seed {rec.get('seed')} after training started (at optimizer "
                    f"step(s) {', '.join(str(s) for s in steps)}), the same optimizer stepping on after each; "
                    f"call site {_sites(run, rec.get('sites') or [])}{also}",
        next_test="print the first indices the shuffled loader yields at the start of two epochs: they are identical",
        fix="seed once before training, or seed with a value that changes (seed + epoch); give a sampler or an "
            "augmentation that must repeat its own torch.Generator",
        measurements={"repeats": repeats}, step=rec.get("step"), phase="data", **site_location(run, rec))
