"""What the traced run's DataLoaders hand out, seen at each ``iter(loader)`` (child side, stdlib + torch only).

* Persistent workers: a loader with ``persistent_workers=True`` and worker processes gives each worker a copy of
  the dataset once, at its first ``iter()``. The simple attributes (numbers, strings, flags) of the dataset, and
  of the datasets it wraps, are fingerprinted then and compared at every later ``iter()``: a value changed in the
  main process since (``dataset.set_epoch(e)``, a curriculum level, a noise scale) never reaches the workers.
* Distributed samplers: every ``DistributedSampler`` iterated is recorded (dataset, replicas, rank, seed,
  shuffle); samplers of several ranks over the same dataset in one process (ranks simulated, or a script that
  checks its sharding) are compared: with different seeds each rank shuffles its own permutation before taking
  its slice, so the shards overlap and part of the data is never seen in an epoch.
"""

from __future__ import annotations

from typing import Any

MAX_LOADERS = 20
MAX_CHANGES = 10
SIMPLE = (int, float, str, bool, type(None))


class LoaderWatch:
    def __init__(self) -> None:
        self._first: dict[int, dict] = {}  # id(loader) -> the fingerprint when its persistent workers took their copy
        self._loaders: list[Any] = []  # kept so that ids stay unique while watched
        self.stale: list[dict] = []
        self.samplers: list[dict] = []
        self._sampler_ids: set[int] = set()

    def patches(self) -> list:
        try:
            from torch.utils.data import DataLoader
        except Exception:  # noqa: BLE001 - no torch.utils.data: nothing to watch
            return []
        watch = self

        def factory(runner, original):
            def wrapped(loader, *args, **kwargs):
                if not runner._muted:
                    try:
                        watch.see(loader, runner.step, runner)
                    except Exception:  # noqa: BLE001 - the user's loader must work whatever the watch does
                        runner.record_error("trace", "DataLoader.__iter__ watch")
                return original(loader, *args, **kwargs)

            return wrapped

        return [(DataLoader, "__iter__", factory)]

    def see(self, loader: Any, step: int, runner: Any = None) -> None:
        self._see_sampler(loader, runner)
        if not getattr(loader, "persistent_workers", False) or not getattr(loader, "num_workers", 0):
            return
        now = fingerprint(loader.dataset)
        first = self._first.get(id(loader))
        if first is None:
            if len(self._first) < MAX_LOADERS:
                self._first[id(loader)] = now
                self._loaders.append(loader)
            return
        changed = {k: [first[k], now.get(k)] for k in first if now.get(k, first[k]) != first[k]}
        if changed and len(self.stale) < MAX_CHANGES and not any(s["loader"] == id(loader) for s in self.stale):
            self.stale.append({"loader": id(loader), "dataset": type(loader.dataset).__name__, "step": step,
                               "workers": int(loader.num_workers), "changed": {k: [_short(a), _short(b)] for k, (a, b) in list(changed.items())[:5]}})

    def _see_sampler(self, loader: Any, runner: Any = None) -> None:
        from torch.utils.data.distributed import DistributedSampler

        sampler = getattr(loader, "sampler", None)
        if not isinstance(sampler, DistributedSampler):
            sampler = getattr(getattr(loader, "batch_sampler", None), "sampler", None)
        if not isinstance(sampler, DistributedSampler) or id(sampler) in self._sampler_ids or len(self.samplers) >= 64:
            return
        self._sampler_ids.add(id(sampler))
        self._loaders.append(sampler)
        self.samplers.append({"dataset": id(sampler.dataset), "dataset_type": type(sampler.dataset).__name__,
                              "dataset_len": len(sampler.dataset), "replicas": int(sampler.num_replicas), "rank": int(sampler.rank),
                              "seed": int(getattr(sampler, "seed", 0)), "shuffle": bool(getattr(sampler, "shuffle", True)),
                              "epoch": int(getattr(sampler, "epoch", 0)), "_indices": _listed(sampler, runner)})

    def result(self) -> dict:
        return {"stale_persistent_workers": [{k: v for k, v in s.items() if k != "loader"} for s in self.stale],
                "distributed_samplers": _sampler_groups(self.samplers)}


def fingerprint(dataset: Any, depth: int = 3) -> dict:
    """The simple attributes of a dataset and of the datasets it wraps (``.dataset``), by dotted name."""
    out: dict = {}
    prefix = ""
    while dataset is not None and depth > 0:
        attrs = getattr(dataset, "__dict__", None) or {}
        for k, v in attrs.items():
            if isinstance(v, SIMPLE):
                out[prefix + k] = v
        dataset = attrs.get("dataset")
        prefix += "dataset."
        depth -= 1
    return out


def _short(value: Any) -> Any:
    return value if isinstance(value, (int, float, bool, type(None))) else str(value)[:60]


def _listed(sampler: Any, runner: Any) -> list | None:
    """The sampler's indices, listed with the observers suspended: this extra pass is not one of the run's epochs
    (the rank observer records every ``DistributedSampler.__iter__`` and would count it as a repeated order)."""
    if runner is None:
        return _indices(sampler)
    with runner.suspended():
        return _indices(sampler)


def _indices(sampler: Any) -> list | None:
    try:
        return list(iter(sampler)) if len(sampler.dataset) <= 200_000 else None
    except Exception:  # noqa: BLE001 - a sampler that cannot be listed is compared by its seed only
        return None


def _sampler_groups(samplers: list) -> list:
    """Groups of samplers over one dataset with the same replica count and several ranks, with their coverage."""
    groups: dict = {}
    for s in samplers:
        groups.setdefault((s["dataset"], s["replicas"]), []).append(s)
    out = []
    for (_ds, replicas), members in groups.items():
        ranks = {m["rank"] for m in members}
        if len(ranks) < 2:
            continue
        seeds = sorted({m["seed"] for m in members})
        covered = None
        if all(m["_indices"] is not None for m in members) and members[0]["dataset_len"]:
            seen: set = set()
            for m in members:
                seen.update(m["_indices"])
            covered = len(seen) / members[0]["dataset_len"]
        out.append({"dataset_type": members[0]["dataset_type"], "dataset_len": members[0]["dataset_len"], "replicas": replicas,
                    "ranks": sorted(ranks), "seeds": seeds[:8], "shuffle": any(m["shuffle"] for m in members),
                    "complete": len(ranks) == replicas, "coverage": covered})
    return out
