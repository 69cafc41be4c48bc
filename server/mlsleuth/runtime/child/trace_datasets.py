"""Probes of the map-style datasets the traced run's DataLoaders wrap, run once per dataset at the loader's first
``iter()`` (child side, stdlib + torch; numpy when installed).

* Rereads: a few indices are read twice, each pair from the same random state (Python's, numpy's and torch's global
  generators and the generators the dataset holds). A dataset whose second read differs *and* whose second read
  wrote its stored data again (``x = self.data[i]; x -= mean; x /= std`` on a view of the cache) normalises or
  augments its own samples a little more on every access, epoch after epoch. Random augmentation (same state, same
  output), caches filled on the first read (the second read writes nothing), lazily loaded files, counters and
  in-place reshuffles of an index array are told apart by that rule.
* Lengths: a dataset class of the user's own whose ``len()`` is smaller than the first dimension of an array or
  list it holds, where that length has a telling origin (another axis of that array, the size of another
  attribute, a number written in ``__len__``, a batch count, the number of classes), and where reading at index
  ``len(ds)`` and at the last row of that storage still returns well-formed items distinct from the first ones:
  the sampler never draws those rows.

Every probe runs on the user's own dataset with the observers suspended, output and warnings silenced, and is
undone afterwards (:mod:`dataset_state`): arrays, attribute bindings, containers and random states are put back as
they were, so the run goes on exactly as it would without mlsleuth. A dataset holding more state than that undo
may copy is not probed.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import sys
import time
import warnings
from typing import Any

from dataset_items import compatible, first_difference, max_diff, numel, snapshot, stats
from dataset_state import (
    capture,
    global_rng,
    set_generator_states,
    set_global_rng,
    user_class,
    user_file,
)
from dataset_writes import WriteWitness

MAX_DATASETS = 4
PAIRS = 6  # indices read twice
BUDGET_S = 2.0  # per dataset, for all reads
SAMPLER_TYPES = ("SequentialSampler", "RandomSampler", "DistributedSampler")  # draw indices from range(len(dataset))


class DatasetProbe:
    def __init__(self) -> None:
        self._seen: set[int] = set()
        self._kept: list = []  # keeps ids unique while watched
        self.rereads: list[dict] = []
        self.lengths: list[dict] = []
        self.skipped: list[dict] = []

    def patches(self) -> list:
        try:
            from torch.utils.data import DataLoader
        except Exception:  # noqa: BLE001 - no torch.utils.data: nothing to probe
            return []
        probe = self

        def factory(runner, original):
            def wrapped(loader, *args, **kwargs):
                if not runner._muted:
                    try:
                        probe.see(loader, runner)
                    except Exception:  # noqa: BLE001 - the user's loader must work whatever the probe does
                        runner.record_error("trace", "dataset probe")
                return original(loader, *args, **kwargs)

            return wrapped

        return [(DataLoader, "__iter__", factory)]

    def see(self, loader: Any, runner: Any = None) -> None:
        ds = getattr(loader, "dataset", None)
        if ds is None or id(ds) in self._seen or len(self._seen) >= MAX_DATASETS or not _map_style(ds):
            return
        self._seen.add(id(ds))
        self._kept.append(ds)
        with (runner.suspended() if runner is not None else contextlib.nullcontext()), _quiet():
            self.probe(ds, loader)

    def probe(self, ds: Any, loader: Any = None) -> None:
        rng = global_rng()
        state = capture(ds)
        if state is None:
            self.skipped.append({"dataset": type(ds).__name__, "why": "it holds more state than a probe may copy and put back"})
            return
        try:
            rec = Reads(ds, state, rng).reread()
            if rec is not None:
                rec.update(_loader_info(loader))
                self.rereads.append(rec)
            state.restore()
            set_global_rng(rng)
            for inner, wrapped in _datasets(ds):
                if wrapped or loader is None or _len_sampler(loader):
                    rec = Reads(inner, state, rng).length()
                    if rec is not None:
                        rec.update(_loader_info(loader), wrapped=wrapped)
                        self.lengths.append(rec)
                    state.restore()
        finally:
            state.restore()
            set_global_rng(rng)

    def result(self) -> dict:
        return {"rereads": self.rereads, "lengths": self.lengths, "skipped": self.skipped[:10]}


class Reads:
    """Reads of one dataset from chosen random states, within the time budget."""

    def __init__(self, ds: Any, state: Any, rng: dict, started: float | None = None) -> None:
        self.ds, self.state = ds, state
        self.rng, self.gens = rng, state.generator_states()
        self.started = started if started is not None else time.monotonic()

    def _left(self) -> bool:
        return time.monotonic() - self.started < BUDGET_S

    def _from(self, rng: dict, gens: list) -> None:
        set_global_rng(rng)
        set_generator_states(gens)

    def read(self, i: int) -> Any:
        self.state.dirty = True
        return snapshot(self.ds[i])

    def try_read(self, i: int) -> tuple[bool, Any]:
        """``(True, item)``, or ``(False, exception name)``: read from the probe's first random state."""
        self._from(self.rng, self.gens)
        try:
            return True, self.read(i)
        except Exception as exc:  # noqa: BLE001 - an index the dataset refuses
            return False, type(exc).__name__

    # -- rereads ------------------------------------------------------------------------------------------------------
    def reread(self) -> dict | None:
        n = len(self.ds)
        for i in spread(n, PAIRS):
            if not self._left():
                return None
            rng, gens = global_rng(), self.state.generator_states()
            try:
                first = self.read(i)
                self._from(rng, gens)
                second = self.read(i)
            except Exception:  # noqa: BLE001 - a dataset that cannot be read twice here is not probed
                return None
            if first_difference(first, second) is not None:
                try:
                    rec = self._confirm(i, rng, gens)
                except Exception:  # noqa: BLE001 - the dataset's own error on a third read: no evidence
                    rec = None
                if rec is not None:
                    return rec
        return None

    def _confirm(self, i: int, rng: dict, gens: list) -> dict | None:
        """Read ``i`` twice again from a clean state, noting what each read wrote into the stored arrays."""
        self.state.restore()
        self._from(rng, gens)
        first = self.read(i)
        written = self.state.changed_arrays()
        keys = [c["key"] for c in written]
        mid = self.state.values_now(keys)
        self._from(rng, gens)
        with WriteWitness(self.state.pointers(keys), self.state.rows_changed_since(keys, mid)) as spy:
            second = self.read(i)
        diff = first_difference(first, second)
        rewritten = self.state.changed_arrays(since=mid)
        if diff is None or not rewritten:
            return None
        where, a, b = diff
        cls = _reader_class(self.ds)
        path, line = _source(cls, "__getitem__")
        site_path, site_line = spy.site or (None, None)
        return {"dataset": cls.__name__, "index": i, "len": len(self.ds), "leaf": where,
                "leaf_shape": list(getattr(a, "shape", ())), "leaf_numel": numel(a), "first": stats(a), "second": stats(b),
                "max_diff": max_diff(a, b),
                "rewritten": [{k: v for k, v in c.items() if k != "key"} for c in rewritten[:5]],
                "written_first": len(written), "path": site_path or path, "line": site_line or line,
                "inplace_op_found": spy.site is not None, "getitem_path": path, "getitem_line": line}

    # -- lengths -------------------------------------------------------------------------------------------------------
    def length(self) -> dict | None:
        ds = self.ds
        cls = type(ds)
        if not (user_class(cls) and _own(cls, "__len__") and _own(cls, "__getitem__")):
            return None
        n = len(ds)
        stored = storage(ds)
        longer = [s for s in stored if s["rows"] > n]
        if n < 1 or not longer:
            return None
        why = explain(ds, n, stored, longer)
        if why is None or not self._left():
            return None
        ok0, r0 = self.try_read(0)
        okl, rl = self.try_read(n - 1)
        okn, rn = self.try_read(n)
        if not (ok0 and okl and okn) or not (compatible(r0, rn) and compatible(rl, rn)):
            return None
        if first_difference(r0, rn) is None or first_difference(rl, rn) is None:
            return None  # the index does not select the item (a random sample per call): nothing to miss
        if n >= 2 and first_difference(r0, rl) is None:
            return None
        for rows in sorted({s["rows"] for s in longer}, reverse=True):
            if not self._left():
                return None
            ok, last = self.try_read(rows - 1)
            if not (ok and compatible(r0, last) and first_difference(r0, last) is not None and first_difference(rn, last) is not None):
                continue
            if self.try_read(rows)[0]:
                continue  # items past the storage too: the index does not select a stored row (a seed, a modulo)
            holder = next(s for s in longer if s["rows"] == rows)
            path, line = _source(cls, "__len__", returns=True)
            return {"dataset": cls.__name__, "len": n, "storage": holder["path"], "rows": rows,
                    "storage_shape": holder.get("shape"), "why": why, "path": path, "line": line}
        return None


# -- what a dataset stores, and where its length may come from -------------------------------------------------------


def storage(ds: Any) -> list[dict]:
    """Arrays, tensors, lists and tuples the dataset holds (and those inside its dict attributes): their first
    dimension (``rows``) and the sizes of the dimensions after it."""
    out = []
    for name, value in list(_attrs(ds).items()):
        items = list(value.items())[:32] if isinstance(value, dict) else []
        for path, v in [(name, value)] + [(f"{name}[{k!r}]", v) for k, v in items]:
            rows, dims = _rows(v)
            if rows is not None:
                out.append({"path": path, "rows": rows, "dims": dims, "shape": [rows, *dims][:6], "value": v})
    return out


def _rows(v: Any) -> tuple[int | None, list]:
    if isinstance(v, (str, bytes, dict, set)) or not hasattr(v, "__len__"):
        return None, []
    shape = getattr(v, "shape", None)
    try:
        if shape is not None and len(shape) >= 1:
            return int(shape[0]), [int(d) for d in shape[1:]]
        if isinstance(v, (list, tuple)) and v:
            first = v[0]
            inner = getattr(first, "shape", None)
            dims = [int(d) for d in inner] if inner is not None else ([len(first)] if isinstance(first, (list, tuple)) else [])
            return len(v), dims
    except Exception:  # noqa: BLE001 - an unusual container: not storage we can size
        return None, []
    return None, []


def explain(ds: Any, n: int, stored: list[dict], longer: list[dict]) -> str | None:
    """Where a dataset length ``n`` smaller than its storage plausibly comes from; None when nothing tells."""
    for s in longer:
        if n in s["dims"]:
            return f"{s['path']} has {s['rows']} rows and {n} is the size of another of its dimensions {s['shape']}"
    for name, value in _attrs(ds).items():
        if isinstance(value, (list, tuple, dict, set)) or hasattr(value, "shape"):
            try:
                size = len(value)
            except Exception:  # noqa: BLE001, S112 - no length
                continue
            if size == n and all(s["path"] != name for s in longer):
                return f"{n} is the length of attribute {name!r}, not of the data"
    fn = type(ds).__len__
    code = fn.__code__
    attrs = {i.argval for i in _instructions(code) if i.opname in ("LOAD_ATTR", "LOAD_METHOD")}
    consts = [c for c in code.co_consts if isinstance(c, int) and not isinstance(c, bool)]
    globals_ = [fn.__globals__.get(k) for k in code.co_names]
    if not attrs and (n in consts or n in [g for g in globals_ if isinstance(g, int)]):
        return f"__len__ returns a fixed number, {n}"
    ints = {k: v for k, v in _attrs(ds).items() if isinstance(v, int) and not isinstance(v, bool) and v >= 2}
    for s in longer:
        for k, b in ints.items():
            if n in (s["rows"] // b, -(-s["rows"] // b)) and n != s["rows"]:
                return f"{n} is the number of batches of {k}={b} in the {s['rows']} rows of {s['path']}"
    for s in longer:
        labels = _int_values(s["value"])
        if labels is not None and len(labels) and (n == max(labels) + 1 or n == len(set(labels))):
            return f"{n} is the number of classes in {s['path']}"
    return None


def _attrs(obj: Any) -> dict:
    attrs = getattr(obj, "__dict__", None)
    return attrs if isinstance(attrs, dict) else {}


def _int_values(v: Any) -> list | None:
    np = sys.modules.get("numpy")
    try:
        if hasattr(v, "dtype") and getattr(v, "ndim", 0) == 1 and "int" in str(v.dtype):
            return [int(x) for x in v[:200_000].tolist()]
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, int) or (np and isinstance(x, np.integer)) for x in v[:1000]):
            return [int(x) for x in v[:200_000]]
    except Exception:  # noqa: BLE001 - not labels
        return None
    return None


def _instructions(code: Any) -> list:
    import dis

    return list(dis.get_instructions(code))


# -- loaders and datasets ---------------------------------------------------------------------------------------------


def spread(n: int, k: int) -> list[int]:
    """Up to ``k`` indices spread over range(n), without drawing random numbers."""
    out: list[int] = []
    for i in (0, n - 1, n // 2, n // 4, (3 * n) // 4, n // 3, (2 * n) // 3, n // 8):
        if 0 <= i < n and i not in out:
            out.append(i)
    return out[:k]


def _map_style(ds: Any) -> bool:
    try:
        from torch.utils.data import IterableDataset

        if isinstance(ds, IterableDataset) or not hasattr(type(ds), "__getitem__"):
            return False
        return len(ds) > 0
    except Exception:  # noqa: BLE001 - no length: not a map-style dataset we can probe
        return False


def _datasets(ds: Any) -> list[tuple[Any, bool]]:
    """The dataset and those it wraps (Subset, ConcatDataset, a wrapper's ``.dataset``), with whether wrapped."""
    out, todo, seen = [], [(ds, False, 0)], set()
    while todo:
        d, wrapped, depth = todo.pop(0)
        if id(d) in seen or depth > 3 or not _map_style(d):
            continue
        seen.add(id(d))
        out.append((d, wrapped))
        inner = getattr(d, "__dict__", {})
        for child in [inner.get("dataset"), *(inner.get("datasets") or [])] if isinstance(inner, dict) else []:
            if child is not None:
                todo.append((child, True, depth + 1))
    return out


def _reader_class(ds: Any) -> type:
    """The class whose ``__getitem__`` does the reading: the first user-written one among the dataset and those it
    wraps (a user dataset behind ``Subset``), else the dataset's own class."""
    for d, _wrapped in _datasets(ds):
        if user_class(type(d)) and _own(type(d), "__getitem__"):
            return type(d)
    return type(ds)


def _len_sampler(loader: Any) -> bool:
    """Whether the loader's indices come from range(len(dataset)): a default or distributed sampler."""
    sampler = getattr(loader, "sampler", None)
    batch_sampler = getattr(loader, "batch_sampler", None)
    if batch_sampler is not None and getattr(batch_sampler, "sampler", None) is not sampler:
        return False
    if type(sampler).__name__ == "RandomSampler" and getattr(sampler, "_num_samples", None) is not None:
        return False
    return type(sampler).__name__ in SAMPLER_TYPES


def _loader_info(loader: Any) -> dict:
    if loader is None:
        return {"workers": 0, "persistent": False}
    return {"workers": int(getattr(loader, "num_workers", 0) or 0), "persistent": bool(getattr(loader, "persistent_workers", False)),
            "sampler": type(getattr(loader, "sampler", None)).__name__}


def _own(cls: type, name: str) -> bool:
    """Whether ``cls`` (or a user class it derives from) defines ``name`` itself, in the user's code."""
    for klass in cls.__mro__:
        if name in vars(klass):
            fn = vars(klass)[name]
            return isinstance(fn, type(_own)) and user_file(fn.__code__.co_filename)
    return False


def _source(cls: type, name: str, returns: bool = False) -> tuple[str | None, int | None]:
    """The file and line of ``cls.name`` (with ``returns``: of its first ``return``)."""
    try:
        fn = getattr(cls, name)
        path, line = inspect.getsourcefile(fn), inspect.getsourcelines(fn)[1]
    except Exception:  # noqa: BLE001 - no source (a C type, an interactive session)
        return None, None
    if returns:
        lines = [i.positions.lineno for i in _instructions(fn.__code__)
                 if i.opname.startswith("RETURN") and getattr(i, "positions", None) and i.positions.lineno]
        line = lines[0] if lines else line
    return path, line


@contextlib.contextmanager
def _quiet():
    """The probe's reads print nothing and leave no warning registry entries behind."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
