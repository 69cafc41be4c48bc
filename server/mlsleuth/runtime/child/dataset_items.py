"""Items a Dataset returns, copied and compared by the dataset probes (child side, stdlib + torch; numpy when
installed): detached copies, the first leaf two items differ in, whether two items are alike in form, and a few
statistics of a leaf for the report."""

from __future__ import annotations

import math
import sys
from typing import Any

MAX_LEAVES = 64


def snapshot(item: Any, depth: int = 0) -> Any:
    """A detached copy of an item (tensors cloned, arrays copied, images as arrays), so that a later write into
    the dataset cannot change what an earlier read returned."""
    torch = sys.modules.get("torch")
    np = sys.modules.get("numpy")
    if torch is not None and isinstance(item, torch.Tensor):
        return item.detach().clone()
    if np is not None and isinstance(item, np.ndarray):
        return item.copy()
    if depth > 4:
        return item
    if isinstance(item, (list, tuple)):
        return type(item)(snapshot(x, depth + 1) for x in item) if type(item) in (list, tuple) else [snapshot(x, depth + 1) for x in item]
    if isinstance(item, dict):
        return {k: snapshot(v, depth + 1) for k, v in item.items()}
    if type(item).__module__.startswith("PIL") and np is not None:
        return np.asarray(item).copy()
    attrs = getattr(item, "__dict__", None)
    if isinstance(attrs, dict) and not callable(item):
        return {"<type>": type(item).__name__, **{k: snapshot(v, depth + 1) for k, v in attrs.items()}}
    return item


def _leaves(item: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(item, (list, tuple)):
        return [leaf for i, x in enumerate(item) for leaf in _leaves(x, f"{path}[{i}]")][:MAX_LEAVES]
    if isinstance(item, dict):
        return [leaf for k, x in item.items() for leaf in _leaves(x, f"{path}[{k!r}]")][:MAX_LEAVES]
    return [(path or "item", item)]


def _same(a: Any, b: Any) -> bool:
    torch = sys.modules.get("torch")
    np = sys.modules.get("numpy")
    if torch is not None and isinstance(a, torch.Tensor):
        if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point() or a.is_complex():
            return bool(((a == b) | (a.isnan() & b.isnan())).all())
        return torch.equal(a, b)
    if np is not None and isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=np.issubdtype(a.dtype, np.inexact)))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared count as equal (no evidence)
        return True


def first_difference(a: Any, b: Any) -> tuple[str, Any, Any] | None:
    """``(where, a's leaf, b's leaf)`` of the first leaf that differs between two items; None when equal."""
    la, lb = _leaves(a), _leaves(b)
    if [p for p, _ in la] != [p for p, _ in lb]:
        return ("item", a, b)
    for (path, x), (_, y) in zip(la, lb):
        if not _same(x, y):
            return path, x, y
    return None


def compatible(a: Any, b: Any) -> bool:
    """Same structure, and leaves of the same kind, shape and dtype: two well-formed items of one dataset."""
    la, lb = _leaves(a), _leaves(b)
    if [p for p, _ in la] != [p for p, _ in lb]:
        return False
    for (_, x), (_, y) in zip(la, lb):
        if type(x) is not type(y):
            return False
        if hasattr(x, "shape") and (tuple(x.shape) != tuple(y.shape) or getattr(x, "dtype", None) != getattr(y, "dtype", None)):
            return False
        if isinstance(x, (list, str, bytes)) and (len(x) == 0) != (len(y) == 0):
            return False
    return True


def numel(x: Any) -> int:
    if hasattr(x, "numel") and callable(x.numel):
        return int(x.numel())
    return int(getattr(x, "size", 1)) if hasattr(x, "shape") else 1


def max_diff(a: Any, b: Any) -> float | None:
    """The largest absolute difference between two numeric leaves of one shape; None when not comparable."""
    try:
        torch = sys.modules["torch"]
        x, y = (torch.as_tensor(v).detach().double() if not isinstance(v, (int, float)) else torch.tensor(float(v), dtype=torch.float64)
                for v in (a, b))
        if x.shape != y.shape:
            return None
        d = (x - y).abs()
        d = d[d.isfinite()]
        return float(d.max()) if d.numel() else None
    except Exception:  # noqa: BLE001 - not numbers
        return None


def stats(x: Any) -> dict:
    try:
        np = sys.modules.get("numpy")
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(x, torch.Tensor):
            v = x.detach().double().flatten()
        elif np is not None and isinstance(x, np.ndarray) and x.dtype.kind in "biuf":
            v = torch.from_numpy(x.astype("float64").ravel())
        elif isinstance(x, (int, float)):
            return {"value": float(x)}
        else:
            return {}
        v = v[v.isfinite()]
        if not v.numel():
            return {}
        return {"mean": float(v.mean()), "std": float(v.std()) if v.numel() > 1 else 0.0, "absmax": float(v.abs().max())}
    except Exception:  # noqa: BLE001 - no statistics for this leaf
        return {}
