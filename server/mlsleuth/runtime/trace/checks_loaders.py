"""``trace`` checks on what DataLoaders hand out: persistent workers that keep a stale dataset copy, distributed
samplers whose ranks shuffle with different seeds.

They read ``loaders``, what :mod:`mlsleuth.runtime.child.trace_loaders` saw at each ``iter(loader)``.
Registered with the other trace checks (``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check


def _loaders(run: Any) -> dict:
    return run.data.get("loaders") or {}


@runtime_check("persistent-workers-stale-dataset", tool="trace", category="environment", severity="warning")
def persistent_workers_stale_dataset(run: Any) -> Iterator[Found]:
    """The main process changed a dataset that persistent DataLoader workers hold a copy of.

    What it finds: a DataLoader with `persistent_workers=True` and worker processes whose dataset (or a dataset it
    wraps) has a simple attribute (a number, string or flag) with a different value at a later `iter(loader)` than
    when the workers were started: e.g. `dataset.set_epoch(epoch)` or a curriculum level set between epochs.
    Why it matters: each persistent worker received its own copy of the dataset when it started and keeps it for
    the whole run; changes made in the main process never reach it. The log shows the new value while every
    batch is still built with the old one (a curriculum that never advances, augmentation that never changes).
    How to confirm: return the attribute from `__getitem__` (or print it there with the worker id) after the
    change: the workers still see the first value.
    What to do instead: set `persistent_workers=False` for datasets with per-epoch state, derive the state from
    the epoch inside the worker (e.g. a shared `multiprocessing.Value`), or rebuild the DataLoader when it changes.
    """
    for rec in _loaders(run).get("stale_persistent_workers") or []:
        changes = ", ".join(f"{k} = {fmt(b) if isinstance(b, float) else b} (it was {fmt(a) if isinstance(a, float) else a} when the "
                            f"workers started)" for k, (a, b) in (rec.get("changed") or {}).items())
        yield Found(
            f"{rec.get('dataset')} was changed in the main process after its {rec.get('workers')} persistent DataLoader workers "
            f"took their copy: the workers never see the new value",
            observation=f"at step {rec.get('step')}, a new pass over the loader found {changes}; "
                        f"persistent_workers=True keeps each worker's first copy of the dataset",
            next_test="return the attribute from __getitem__ (or print it with torch.utils.data.get_worker_info().id) after the "
                      "change: the workers still use the first value",
            fix="use persistent_workers=False for a dataset with per-epoch state, or share the state with the workers "
                "(multiprocessing.Value) instead of setting it on the main process's copy",
            measurements=rec, step=rec.get("step"), phase="data")


@runtime_check("distributed-sampler-seeds-differ", tool="trace", category="distributed", severity="error")
def distributed_sampler_seeds_differ(run: Any) -> Iterator[Found]:
    """DistributedSamplers of different ranks shuffle the same dataset with different seeds.

    What it finds: `DistributedSampler`s over one dataset with the same `num_replicas` and different `rank`s (ranks
    simulated in one process, or a script that builds each rank's sampler) that shuffle with different `seed`s.
    Why it matters: every rank draws its own permutation and takes its strided slice of it, so the shards are no
    longer disjoint: in each epoch some samples are seen by several ranks and others by none.
    How to confirm: build the samplers of all ranks, take `set(iter(sampler))` of each and compare the size of
    their union with `len(dataset)`.
    What to do instead: give every rank the same seed (it defaults to 0) and call `sampler.set_epoch(epoch)` on
    each rank every epoch; use a rank-dependent seed only for per-rank randomness such as augmentation.
    """
    for group in _loaders(run).get("distributed_samplers") or []:
        if not group.get("shuffle") or len(group.get("seeds") or []) < 2:
            continue
        coverage = group.get("coverage")
        seen = f"; together the {len(group['ranks'])} ranks' shards cover {coverage:.0%} of the dataset" if isinstance(coverage, (int, float)) else ""
        yield Found(
            f"the DistributedSamplers of ranks {group['ranks']} over one {group.get('dataset_type')} shuffle with different seeds: "
            f"their shards overlap and part of the data is never seen in an epoch",
            observation=f"{len(group['ranks'])} samplers with num_replicas={group.get('replicas')} over a dataset of "
                        f"{group.get('dataset_len')} samples use seeds {group['seeds']}{seen}",
            next_test="len(set().union(*(set(iter(s)) for s in samplers))) / len(dataset): below 1 means overlapping shards",
            fix="pass the same seed to every rank's DistributedSampler (and call set_epoch each epoch); keep rank-dependent "
                "seeds for per-rank randomness only",
            measurements=group, phase="data")
