"""``trace`` checks on the map-style datasets the run's DataLoaders wrap: a ``__getitem__`` that writes into the
stored samples, a ``__len__`` shorter than the data.

They read ``datasets``, what :mod:`mlsleuth.runtime.child.trace_datasets` found when it probed each loader's
dataset at the loader's first ``iter()`` (reads undone afterwards). Registered with the other trace checks
(``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location

MIN_WRITTEN_SHARE = 0.5  # the rewritten stored values cover at least this share of the item's changed part
MIN_RELATIVE_CHANGE = 1e-4  # a smaller change between the reads is rounding (an idempotent op such as x -= x.mean())


def _datasets(run: Any) -> dict:
    return run.data.get("datasets") or {}


def _rewrites(rec: dict) -> list[dict]:
    """The stored arrays the second read wrote into like a sample being modified in place: values changed (not
    just moved, as an index array shuffled in place), confined to a few rows or to one element of a collection
    (not a whole array, as a running statistic), and at least half as many values as the item's changed part."""
    out = []
    for w in rec.get("rewritten") or []:
        if w.get("reordered"):
            continue
        rows, rows_changed = w.get("rows") or 1, w.get("rows_changed") or 0
        localised = w.get("in_container") or (rows >= 2 and rows_changed <= rows / 2)
        if localised and (w.get("changed") or 0) >= MIN_WRITTEN_SHARE * (rec.get("leaf_numel") or 1):
            out.append(w)
    return out


def _material(rec: dict) -> bool:
    """Whether the two reads differ by more than rounding."""
    diff = rec.get("max_diff")
    if diff is None:
        return True  # not numbers (a string, a structure): any difference counts
    scale = max((rec.get(k) or {}).get("absmax", abs((rec.get(k) or {}).get("value", 0.0))) for k in ("first", "second"))
    return diff > MIN_RELATIVE_CHANGE * max(scale, 1e-12)


def _stat_text(s: dict) -> str:
    if "value" in s:
        return fmt(s["value"])
    if not s:
        return "?"
    return f"mean {fmt(s.get('mean'))}, std {fmt(s.get('std'))}, max|x| {fmt(s.get('absmax'))}"


@runtime_check("dataset-getitem-modifies-stored-data", tool="trace", category="data", severity="warning")
def dataset_getitem_modifies_stored_data(run: Any) -> Iterator[Found]:
    """A Dataset's `__getitem__` writes into its stored samples.

    What it finds: a map-style dataset of a DataLoader where reading the same index twice, from the same random
    state, gives different values and the second read wrote into the dataset's stored data again: e.g.
    `img = self.images[idx]` (a view of a cached tensor, or `torch.from_numpy` of a cached array) passed to a
    transform that normalises with `sub_`/`div_`, `-=`/`/=`, or `Normalize(inplace=True)`. The loader reads in the
    main process (`num_workers=0`), keeps persistent workers, or the data is in shared memory.
    Why it matters: every access modifies the cached sample, so the transform compounds: each epoch normalises
    (or scales, or shifts) already normalised data again, the inputs drift or blow up epoch after epoch, and a
    validation set read a different number of times no longer matches what the model was trained on. Nothing
    errors; the loss just stops improving.
    How to confirm: with `torch.manual_seed(0)` before each read, `a = ds[i][0].clone(); b = ds[i][0]`:
    `(a - b).abs().max()` is not zero; or print a statistic of `ds.images[i]` before and after one read.
    What to do instead: copy the stored sample before transforming it (`self.images[idx].clone()`, `.copy()` for
    numpy, `torch.tensor(arr)` instead of `torch.from_numpy(arr)`), or use out-of-place operations
    (`(img - mean) / std`). Healthy look-alikes stay silent: random augmentation (same random state, same output),
    caches filled on the first read, lazily opened files, per-item counters, index arrays reshuffled in place.
    """
    seen: set = set()
    for rec in _datasets(run).get("rereads") or []:
        writes = _rewrites(rec)
        if not writes or not _material(rec) or rec.get("dataset") in seen:
            continue
        if rec.get("workers") and not rec.get("persistent") and not any(w.get("shared") for w in writes):
            continue  # each pass's workers write into their own fresh copy: nothing compounds
        seen.add(rec.get("dataset"))
        w = writes[0]
        name, index = rec.get("dataset", "the dataset"), rec.get("index")
        site = " (the in-place operation at this line wrote into it)" if rec.get("inplace_op_found") else ""
        yield Found(
            f"{name}.__getitem__ writes into the stored samples: item {index} changes every time it is read, so the "
            f"transform compounds epoch after epoch",
            observation=f"reading item {index} twice from the same random state gave {rec.get('leaf')} = "
                        f"{_stat_text(rec.get('first') or {})} and then {_stat_text(rec.get('second') or {})}; the second "
                        f"read changed {w.get('changed')} stored values in {w.get('rows_changed')} row(s) of `{w.get('path')}` "
                        f"({w.get('dtype')}, shape {w.get('shape')}) again{site}",
            next_test=f"torch.manual_seed(0); a = ds[{index}]; torch.manual_seed(0); b = ds[{index}]: compare them (clone "
                      f"the first), or print ds.{w.get('path')}[{index}] before and after one read",
            fix="copy the stored sample before transforming it (.clone() / .copy() / torch.tensor(...) instead of "
                "torch.from_numpy), or normalise out of place: (img - mean) / std instead of sub_/div_ or -= and /=",
            measurements={k: rec.get(k) for k in ("dataset", "index", "len", "leaf", "leaf_shape", "first", "second",
                                                    "workers", "persistent")} | {"rewritten": writes},
            phase="data", **site_location(run, rec))


@runtime_check("dataset-len-shorter-than-data", tool="trace", category="data", severity="warning")
def dataset_len_shorter_than_data(run: Any) -> Iterator[Found]:
    """A Dataset's `__len__` is smaller than the data it indexes.

    What it finds: a dataset class of the script whose `len()` is smaller than the first dimension of an array,
    tensor or list it holds, where the length has a telling origin (another axis of that array such as
    `self.images.shape[1]`, the size of another attribute such as a class list or a dict of encodings, a number
    written in `__len__`, a batch count, the number of classes), and where `ds[len(ds)]` and the storage's last
    row still return well-formed items, different from the first ones. Only loaders whose indices come from
    `range(len(dataset))` (the default or distributed samplers, `random_split`/`Subset` of it) count.
    Why it matters: the sampler only ever draws indices below `len(ds)`, so every epoch trains (or evaluates) on
    the same small slice of the data and the rest is never seen; nothing errors and the loss still moves.
    How to confirm: compare `len(ds)` with the number of samples you loaded, and read `ds[len(ds)]`: it returns
    a valid sample although it is "past the end".
    What to do instead: return the number of samples, the first dimension of the stored data
    (`len(self.images)` / `self.images.shape[0]`). Healthy look-alikes stay silent: auxiliary lists of another
    length (class names, vocabularies), windowed datasets (`N - window + 1`), datasets that repeat their data
    (`i % N`), random-sampling datasets with a nominal length, wrappers such as `Subset` and `ConcatDataset`.
    """
    seen: set = set()
    for rec in _datasets(run).get("lengths") or []:
        n, rows = rec.get("len") or 0, rec.get("rows") or 0
        if not n or rows <= n or rec.get("dataset") in seen:
            continue
        seen.add(rec.get("dataset"))
        unused = 1 - n / rows
        name = rec.get("dataset", "the dataset")
        yield Found(
            f"len({name}) is {n} but its `{rec.get('storage')}` holds {rows} samples: indices {n}..{rows - 1} are never "
            f"drawn, {unused:.0%} of the data is never used",
            observation=f"{rec.get('why')}; {name}[{n}] and {name}[{rows - 1}] still return well-formed items, different "
                        f"from the first ones" + (" (the dataset is wrapped by a Subset/ConcatDataset whose indices come "
                                                  "from its len())" if rec.get("wrapped") else ""),
            next_test=f"print(len(ds), len(ds.{rec.get('storage')})) and read ds[len(ds)]: it returns a valid sample",
            fix=f"return the number of samples from __len__, e.g. len(self.{str(rec.get('storage')).split('[')[0]})",
            measurements={k: rec.get(k) for k in ("dataset", "len", "storage", "rows", "storage_shape", "why", "sampler", "wrapped")},
            phase="data", **site_location(run, rec))
