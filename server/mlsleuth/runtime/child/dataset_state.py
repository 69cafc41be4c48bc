"""Undo for dataset probes: the state a Dataset's ``__getitem__`` can change, captured before a probe, compared and
put back after it (child side, stdlib + torch; numpy when installed).

The dataset probes of :mod:`trace_datasets` read items from the user's own dataset object (a copy would not do:
``copy.deepcopy`` fails on open files and database handles, doubles the memory of everything the dataset holds,
and misses module-level arrays that ``__getitem__`` reads). So everything a read may write is captured first and
restored afterwards:

* arrays: every torch tensor and writeable numpy array reachable from the dataset (its attributes, the datasets
  and transforms it holds, list/dict/tuple contents, function closures, module globals its class's methods
  name): copied, compared, and copied back in place where they changed;
* bindings: each reachable object's ``__dict__``, each reachable list/dict/set/deque's contents and the module
  globals the reading code names (a counter bumped, a file handle opened lazily, a cache filled): put back as
  they were; open files are sought back to their position;
* random generators: Python's, numpy's and torch's global states and every ``random.Random``,
  ``numpy.random.Generator``/``RandomState`` and ``torch.Generator`` reachable from the dataset;
* ``functools.lru_cache`` wrappers on the dataset's class or in its module: emptied again when the probe filled
  an empty one.

The walk is bounded (objects, container elements, bytes: :func:`byte_budget`): a dataset holding more than that, or state that cannot
be put back (an iterator or generator a read would advance, a stream that cannot seek), is not probed at all
(:func:`capture` returns None). Not undone: files written, pandas frames changed in place, lru caches that
already held entries, state created during the probe itself (a cache loaded lazily on the first read is dropped
again with the attribute that held it).
"""

from __future__ import annotations

import collections
import functools
import inspect
import io
import os
import random
import sys
import sysconfig
import types
from typing import Any

MAX_HOST_BYTES = 1 << 30  # copies of the arrays a dataset holds, at most (see byte_budget)
MAX_DEVICE_BYTES = 256 << 20
MAX_OBJECTS = 20_000
MAX_ELEMENTS = 2_000_000  # container elements looked at, in all
MAX_DEPTH = 6
OPAQUE = ("pandas", "pyarrow", "h5py", "lmdb", "zarr", "PIL", "logging", "threading", "multiprocessing", "io", "_io",
          "socket", "sqlite3", "tokenizers", "transformers", "datasets", "tqdm", "matplotlib", "_thread", "weakref")
ENTRY_METHODS = ("__getitem__", "__getitems__", "__call__", "forward")  # where a read starts, in a dataset or transform
ATOMS = (int, float, complex, str, bytes, bool, type(None), range, slice, os.PathLike)
_LIBRARY_DIRS = tuple({os.path.realpath(p) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib")
                       if (p := sysconfig.get_paths().get(k))} | {os.path.dirname(os.path.realpath(__file__)) + os.sep})


def user_file(path: str | None) -> bool:
    """Whether ``path`` is the user's code: not the standard library, an installed package or mlsleuth."""
    if not path or path.startswith("<"):
        return False
    real = os.path.realpath(path)
    return not real.startswith(_LIBRARY_DIRS) and f"{os.sep}site-packages{os.sep}" not in real \
        and f"{os.sep}dist-packages{os.sep}" not in real


def user_class(cls: type) -> bool:
    mod = sys.modules.get(getattr(cls, "__module__", "") or "")
    return user_file(getattr(mod, "__file__", None))


_ABSENT = object()  # a global the reading code may create


class TooBig(Exception):
    """More state than the probe may copy, or state it cannot put back (an iterator, a stream)."""


class State:
    """What ``capture`` saw: restorable copies, and where each array sits (a dotted path from the dataset)."""

    def __init__(self) -> None:
        self.arrays: list[tuple[str, Any, Any, bool]] = []  # (path, array, copy, inside a list/dict of samples)
        self.dicts: list[tuple[Any, dict]] = []  # (object, its __dict__ as it was)
        self.containers: list[tuple[Any, Any]] = []  # (list/dict/set, its contents as they were)
        self.generators: list[tuple[Any, Any]] = []  # (generator, state)
        self.caches: list[Any] = []  # lru_cache wrappers that were empty
        self.positions: list[tuple[Any, int]] = []  # (open file, its position)
        self.bindings: list[tuple[dict, str, Any]] = []  # (module globals, name, value) that the reading code names
        self.bytes: dict[str, int] = {}  # per device
        self.dirty = True  # something may have changed since the capture or the last restore
        self._seen: set[int] = set()
        self._elements = 0

    # -- the walk ------------------------------------------------------------------------------------------------
    def walk(self, obj: Any, path: str, depth: int, in_container: bool = False) -> None:
        if isinstance(obj, types.FunctionType):
            self._function(obj, path, depth)
            return
        if isinstance(obj, ATOMS) or id(obj) in self._seen or depth > MAX_DEPTH:
            return
        self._seen.add(id(obj))
        if len(self._seen) > MAX_OBJECTS:
            raise TooBig("objects")
        if _is_tensor(obj) or _is_ndarray(obj):
            self._array(obj, path, in_container)
            return
        if _generator_state(obj) is not None:
            self.generators.append((obj, _generator_state(obj)))
            return
        if isinstance(obj, functools._lru_cache_wrapper):
            if obj.cache_info().currsize == 0:
                self.caches.append(obj)
            self.walk(getattr(obj, "__wrapped__", None), path, depth + 1)
            return
        if isinstance(obj, io.IOBase):
            self._stream(obj)
            return
        if isinstance(obj, (types.ModuleType, type)) or (type(obj).__module__ or "").split(".")[0] in OPAQUE:
            return
        if hasattr(type(obj), "__next__") or isinstance(obj, (types.GeneratorType, types.AsyncGeneratorType)):
            raise TooBig("an iterator: what a read takes from it cannot be given back")
        if isinstance(obj, collections.deque):
            self.containers.append((obj, _contents(obj)))
        if isinstance(obj, (list, dict, set)):
            self.containers.append((obj, _contents(obj)))
        if isinstance(obj, (list, tuple, set, frozenset, collections.deque)):
            self._elements += len(obj)
            if self._elements > MAX_ELEMENTS:
                raise TooBig("elements")
            for i, item in enumerate(obj):
                self.walk(item, f"{path}[{i}]", depth + 1, True)
            return
        if isinstance(obj, dict):
            self._elements += len(obj)
            if self._elements > MAX_ELEMENTS:
                raise TooBig("elements")
            for k, item in obj.items():
                self.walk(item, f"{path}[{k!r}]", depth + 1, True)
            return
        if isinstance(obj, functools.partial):
            for i, item in enumerate((obj.func, *obj.args, *obj.keywords.values())):
                self.walk(item, f"{path}.partial[{i}]", depth + 1)
            return
        if isinstance(obj, types.MethodType):
            self.walk(obj.__self__, path, depth)
            self.walk(obj.__func__, path, depth)
            return
        attrs = getattr(obj, "__dict__", None)
        if isinstance(attrs, dict):
            self.dicts.append((obj, dict(attrs)))
            for k, item in list(attrs.items()):
                self.walk(item, f"{path}.{k}" if path else k, depth + 1)
        cls = type(obj)
        if user_class(cls) and id(cls) not in self._seen:
            self._seen.add(id(cls))
            self._class(cls, depth + 1)

    def _class(self, cls: type, depth: int) -> None:
        """A user class's shared state (class-level caches, arrays) and what its reading methods name."""
        for klass in cls.__mro__:
            if not user_class(klass):
                continue
            for k, item in list(vars(klass).items()):
                if isinstance(item, (list, dict, set, functools._lru_cache_wrapper)) or _is_tensor(item) or _is_ndarray(item):
                    self.walk(item, f"{klass.__name__}.{k}", depth)
        for name in ENTRY_METHODS:
            self._function(getattr(cls, name, None), f"{cls.__name__}.{name}", depth, cls)

    def _function(self, fn: Any, path: str, depth: int, cls: type | None = None) -> None:
        """A user function's closure, and the module globals and (for a method) the methods of ``cls`` it names."""
        fn = getattr(fn, "__func__", fn)
        if isinstance(fn, functools._lru_cache_wrapper):
            self.walk(fn, path, depth)
            return
        if not isinstance(fn, types.FunctionType) or id(fn) in self._seen or not user_file(fn.__code__.co_filename):
            return
        self._seen.add(id(fn))
        if depth > MAX_DEPTH:
            return
        for i, cell in enumerate(fn.__closure__ or ()):
            try:
                self.walk(cell.cell_contents, f"{path}.<closure {i}>", depth + 1)
            except ValueError:  # an empty cell
                pass
        stored = _global_stores(fn.__code__)
        for name in sorted(_names(fn.__code__)):
            method = inspect.getattr_static(cls, name, None) if cls is not None else None
            if method is not None and not isinstance(method, property):
                if isinstance(method, (list, dict, set)) or _is_tensor(method) or _is_ndarray(method):
                    continue  # class-level state: walked already
                self._function(method, f"{cls.__name__}.{name}", depth + 1, cls)
                continue
            if name in fn.__globals__ or name in stored:  # a module-level binding (a counter bumped with `global`)
                self.bindings.append((fn.__globals__, name, fn.__globals__.get(name, _ABSENT)))
            item = fn.__globals__.get(name)
            if item is None or isinstance(item, (types.ModuleType, type)):
                continue
            if isinstance(item, types.FunctionType):
                self._function(item, name, depth + 1)
            else:
                self.walk(item, name, depth + 1)

    def _stream(self, obj: Any) -> None:
        """An open file: its position is put back; one that cannot seek could not be read again."""
        if obj.closed:
            return
        try:
            self.positions.append((obj, obj.tell()))
        except (OSError, ValueError) as exc:
            raise TooBig("an open stream that cannot seek") from exc

    def _array(self, obj: Any, path: str, in_container: bool) -> None:
        if _is_ndarray(obj):
            if not obj.flags.writeable:
                return
            if obj.dtype.hasobject:  # an object array: its elements are what can change
                self._elements += obj.size
                if self._elements > MAX_ELEMENTS:
                    raise TooBig("elements")
                for i, item in enumerate(obj.ravel()[:MAX_ELEMENTS]):
                    self.walk(item, f"{path}[{i}]", MAX_DEPTH - 1, True)
                return
            size = obj.nbytes
        else:
            if obj.is_sparse or obj.device.type == "meta" or getattr(obj, "is_nested", False):
                return
            size = obj.numel() * obj.element_size()
        device = "cpu" if _is_ndarray(obj) else str(obj.device)
        self.bytes[device] = self.bytes.get(device, 0) + size
        self.arrays.append((path, obj, None, in_container))  # copied once the walk knows the total fits

    # -- after the probe -------------------------------------------------------------------------------------------
    def changed_arrays(self, since: dict | None = None) -> list[dict]:
        """Arrays whose values differ from the capture (or, with ``since``, from an earlier ``values_now``)."""
        out = []
        self.masks = {}
        for k, (path, arr, before, in_container) in enumerate(self.arrays):
            ref = since.get(k, before) if since is not None else before
            try:
                mask = _changed_mask(arr, ref)
            except Exception:  # noqa: BLE001, S112 - an array we cannot compare (a structured dtype): no evidence
                continue
            if mask is None:
                continue
            self.masks[k] = mask
            count = int(mask.sum())
            rows = int(mask.reshape(mask.shape[0], -1).any(1).sum()) if mask.ndim >= 1 and mask.shape[0] else 1
            out.append({"key": k, "path": path, "shape": list(arr.shape), "dtype": str(arr.dtype), "changed": count,
                        "reordered": _reordered(arr, ref, mask),
                        "numel": int(mask.size), "rows_changed": rows, "rows": int(arr.shape[0]) if arr.ndim else 1,
                        "in_container": in_container, "shared": bool(_is_tensor(arr) and arr.is_shared())})
        return out

    def values_now(self, keys: list[int]) -> dict:
        return {k: _copy(self.arrays[k][1]) for k in keys}

    def rows_changed_since(self, keys: list[int], values: dict) -> Any:
        """A cheap test, for a line tracer: have the rows that the last ``changed_arrays`` found changed (of the
        arrays ``keys``) moved away from ``values`` (``values_now``) since?"""
        watched = []
        for k in keys:
            mask, arr = self.masks.get(k), self.arrays[k][1]
            if mask is None:
                continue
            rows = mask.reshape(mask.shape[0], -1).any(1).nonzero()[0].tolist() if mask.ndim >= 1 else None
            if rows is not None and len(rows) > 64:
                continue
            watched.append((arr, rows, values[k] if rows is None else values[k][rows]))

        def moved() -> bool:
            for arr, rows, ref in watched:
                now = arr if rows is None else arr[rows]
                if _changed_mask(now, ref) is not None:
                    return True
            return False

        return moved

    def pointers(self, keys: list[int]) -> list[tuple[int, int]]:
        """Memory ranges (start, end) of these arrays, to recognise in-place writes into them."""
        out = []
        for k in keys:
            arr = self.arrays[k][1]
            try:
                start = arr.data_ptr() if _is_tensor(arr) else arr.__array_interface__["data"][0]
                out.append((start, start + (arr.numel() * arr.element_size() if _is_tensor(arr) else arr.nbytes)))
            except Exception:  # noqa: BLE001, S112 - an array without an address: not watched
                continue
        return out

    def generator_states(self) -> list:
        return [(g, _generator_state(g)) for g, _ in self.generators]

    def restore(self) -> None:
        """Everything back as it was at the capture (safe to call more than once; ``dirty`` marks a read since)."""
        if not self.dirty:
            return
        self.dirty = False
        for obj, attrs in self.dicts:
            now = obj.__dict__
            if now.keys() != attrs.keys() or any(now[k] is not v for k, v in attrs.items()):
                for k in [k for k in now if k not in attrs]:
                    del now[k]
                now.update(attrs)
        for namespace, name, value in self.bindings:
            if value is _ABSENT:
                namespace.pop(name, None)
            elif namespace.get(name, _ABSENT) is not value:
                namespace[name] = value
        for obj, contents in self.containers:
            _put_contents(obj, contents)
        for _path, arr, before, _in in self.arrays:
            try:
                if _changed_mask(arr, before) is not None:
                    _copy_into(arr, before)
            except Exception:  # noqa: BLE001, S112 - an array that refuses the copy (overlapping memory): left as is
                continue
        set_generator_states(self.generators)
        for stream, pos in self.positions:
            try:
                if not stream.closed and stream.tell() != pos:
                    stream.seek(pos)
            except (OSError, ValueError):
                pass
        for cache in self.caches:
            if cache.cache_info().currsize:
                cache.cache_clear()


def capture(*roots: Any) -> State | None:
    """The restorable state reachable from ``roots``; None when it is more than the probe may copy."""
    state = State()
    try:
        for root in roots:
            state.walk(root, "", 0)
    except TooBig:
        return None
    if any(size > byte_budget(device) for device, size in state.bytes.items()):
        return None
    state.arrays = [(path, arr, _copy(arr), inside) for path, arr, _none, inside in state.arrays]
    return state


def byte_budget(device: str) -> int:
    """How many bytes of arrays on ``device`` a probe may copy: on the host, 1 GiB or a quarter of the memory
    available now, whichever is less; on a GPU, 256 MiB or a tenth of its free memory."""
    if device == "cpu":
        try:
            with open("/proc/meminfo") as f:
                avail = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
        except (OSError, StopIteration, ValueError):
            return MAX_HOST_BYTES // 2
        return min(MAX_HOST_BYTES, avail // 4)
    try:
        import torch

        if device.startswith("cuda"):
            free, _total = torch.cuda.mem_get_info(torch.device(device))
            return min(MAX_DEVICE_BYTES, free // 10)
    except Exception:  # noqa: BLE001 - no reading of the free memory: the smaller budget
        pass
    return MAX_DEVICE_BYTES // 2


# -- random number generators ------------------------------------------------------------------------------------


def global_rng() -> dict:
    import torch

    out: dict = {"python": random.getstate(), "torch": torch.get_rng_state()}
    np = sys.modules.get("numpy")
    if np is not None:
        out["numpy"] = np.random.get_state()
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        out["cuda"] = torch.cuda.get_rng_state_all()
    return out


def set_global_rng(state: dict) -> None:
    import torch

    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "numpy" in state:
        sys.modules["numpy"].random.set_state(state["numpy"])
    if "cuda" in state:
        torch.cuda.set_rng_state_all(state["cuda"])


def set_generator_states(saved: list) -> None:
    for gen, st in saved:
        try:
            if isinstance(gen, random.Random):
                gen.setstate(st)
            elif hasattr(gen, "bit_generator"):
                gen.bit_generator.state = st
            elif hasattr(gen, "set_state"):
                gen.set_state(st)
        except Exception:  # noqa: BLE001, S110 - a generator that cannot be set back keeps its state
            pass


def _generator_state(obj: Any) -> Any:
    try:
        if isinstance(obj, random.Random) and not isinstance(obj, random.SystemRandom):
            return obj.getstate()
        mod = type(obj).__module__ or ""
        if mod.startswith("numpy.random") and hasattr(obj, "bit_generator"):
            return obj.bit_generator.state
        if mod.startswith("numpy.random") and hasattr(obj, "get_state"):
            return obj.get_state()
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(obj, torch.Generator):
            return obj.get_state()
    except Exception:  # noqa: BLE001 - not a generator we can save
        return None
    return None


# -- arrays ---------------------------------------------------------------------------------------------------------


def _is_tensor(obj: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def _is_ndarray(obj: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.ndarray)


def _copy(arr: Any) -> Any:
    if _is_tensor(arr):
        return arr.detach().clone()
    return arr.copy()


def _copy_into(arr: Any, before: Any) -> None:
    if _is_tensor(arr):
        import torch

        with torch.no_grad():
            arr.copy_(before)
    else:
        sys.modules["numpy"].copyto(arr, before)


def _changed_mask(arr: Any, before: Any) -> Any:
    """A boolean mask (numpy) of the elements of ``arr`` that differ from ``before`` (NaN equal to NaN); None if
    nothing differs."""
    if _is_tensor(arr):
        import torch

        now = arr.detach()
        if now.shape != before.shape:
            return None
        if torch.equal(now, before):
            return None
        diff = now != before
        if now.is_floating_point() or now.is_complex():
            diff &= ~(now.isnan() & before.isnan())
        if not bool(diff.any()):
            return None
        return diff.cpu().numpy()
    np = sys.modules["numpy"]
    if arr.shape != before.shape:
        return None
    diff = arr != before
    if np.issubdtype(arr.dtype, np.inexact):
        diff &= ~(np.isnan(arr) & np.isnan(before))
    diff = np.asarray(diff)
    return diff if diff.any() else None


def _reordered(arr: Any, before: Any, mask: Any) -> bool:
    """Whether the changed elements only moved (an index array shuffled in place): the same values, reordered."""
    try:
        if _is_tensor(arr):
            import torch

            m = torch.from_numpy(mask).to(arr.device)
            return bool(torch.equal(arr.detach()[m].sort().values, before[m].sort().values))
        np = sys.modules["numpy"]
        return bool(np.array_equal(np.sort(arr[mask], axis=None), np.sort(before[mask], axis=None)))
    except Exception:  # noqa: BLE001 - values that cannot be sorted: not a reordering we can show
        return False


# -- bindings -------------------------------------------------------------------------------------------------------


def _contents(obj: Any) -> Any:
    if isinstance(obj, (list, collections.deque)):
        return list(obj)
    if isinstance(obj, dict):
        return dict(obj)
    return set(obj)


def _put_contents(obj: Any, contents: Any) -> None:
    if isinstance(obj, list):
        if len(obj) != len(contents) or any(a is not b for a, b in zip(obj, contents)):
            obj[:] = contents
    elif isinstance(obj, collections.deque):
        if len(obj) != len(contents) or any(a is not b for a, b in zip(obj, contents)):
            obj.clear()
            obj.extend(contents)
    elif isinstance(obj, dict):
        if obj.keys() != contents.keys() or any(obj[k] is not v for k, v in contents.items()):
            obj.clear()
            obj.update(contents)
    elif obj != contents:
        obj.clear()
        obj.update(contents)


def _global_stores(code: types.CodeType) -> set[str]:
    """Names a function (or a function nested in it) assigns with ``global``."""
    import dis

    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("STORE_GLOBAL", "DELETE_GLOBAL")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_stores(const)
    return names


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names
