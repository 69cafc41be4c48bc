"""Tensor shapes as values, and what the shape operations make of them, with nothing to follow in the code.

A :class:`Shape` is a tensor's axes: :data:`BATCH` (the batch of a data loader), an ``int`` (a literal size) or None
(a size the scan does not know). When the rank itself is unknown, a shape keeps what it knows of the leading axes
(``head``) and of the trailing ones (``tail``): ``(N, ..., 1)``. The functions here take a known shape and the
literal arguments of an operation (``squeeze``, ``unsqueeze``, ``view``/``reshape``, ``flatten``, ``transpose``,
``permute``, ``.t()``, reductions with a constant ``dim``, indexing, broadcasting, ``torch.zeros(n, 1)``) and answer
the resulting shape, or None where it is not certain. Following names and calls to a shape is
:mod:`tensor_shapes`' work.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis.context import call_method, constant, keyword

BATCH = "N"


@dataclass(frozen=True)
class Shape:
    """Axes of a tensor: exact (``head`` is every axis) or partly known (at least ``head`` then ``tail``)."""

    head: tuple = ()
    tail: tuple = ()
    exact: bool = True

    @property
    def rank(self) -> int | None:
        return len(self.head) if self.exact else None

    @property
    def min_rank(self) -> int:
        return len(self.head) + len(self.tail)

    @property
    def last(self) -> object:
        """The size of the last axis (None when unknown or the rank is 0)."""
        if self.exact:
            return self.head[-1] if self.head else None
        return self.tail[-1] if self.tail else None

    def text(self) -> str:
        def one(axis: object) -> str:
            return "?" if axis is None else str(axis)
        if self.exact:
            inner = ", ".join(one(a) for a in self.head)
            return f"({inner},)" if len(self.head) == 1 else f"({inner})"
        return "(" + ", ".join([*(one(a) for a in self.head), "...", *(one(a) for a in self.tail)]) + ")"


SCALAR = Shape(())


def exact_shape(*dims: object) -> Shape:
    """The shape whose axes are exactly ``dims``."""
    return Shape(tuple(dims))


_REDUCTIONS = frozenset({"mean", "sum", "amax", "amin", "prod", "std", "var", "logsumexp", "norm"})
SHAPE_METHODS = frozenset({"squeeze", "unsqueeze", "view", "reshape", "flatten", "view_as", "reshape_as",
                            "expand_as", "transpose", "permute", "t"} | _REDUCTIONS)


def literal_int(node: ast.AST | None) -> object:
    """A literal int (negative too), else None."""
    value = constant(node) if node is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _axis(shape: Shape, dim: int) -> int | None:
    """The non-negative position of axis ``dim`` of an exact shape, None when out of range."""
    rank = len(shape.head)
    pos = dim + rank if dim < 0 else dim
    return pos if 0 <= pos < rank else None


def _squeeze(shape: Shape, dims: list[int] | None) -> Shape | None:
    if dims is None:  # every axis of size one; an unknown size may or may not be one
        if not shape.exact or any(a is None for a in shape.head):
            return None
        return Shape(tuple(a for a in shape.head if a != 1))
    if len(dims) != 1:
        return None
    dim = dims[0]
    if not shape.exact:
        if dim == -1 and shape.tail:
            size = shape.tail[-1]
            if size == 1:
                return Shape(shape.head, shape.tail[:-1], False)
            return shape if size is not None else None
        if dim >= 0 and dim < len(shape.head):
            size = shape.head[dim]
            if size == 1:
                return Shape(shape.head[:dim] + shape.head[dim + 1:], shape.tail, False)
            return shape if size is not None else None
        return None
    pos = _axis(shape, dim)
    if pos is None:
        return None
    size = shape.head[pos]
    if size == 1:
        return Shape(shape.head[:pos] + shape.head[pos + 1:])
    return shape if size is not None else None


def _unsqueeze(shape: Shape, dim: int) -> Shape | None:
    if shape.exact:
        rank = len(shape.head) + 1
        pos = dim + rank if dim < 0 else dim
        if not 0 <= pos < rank:
            return None
        return Shape(shape.head[:pos] + (1,) + shape.head[pos:])
    if dim == -1:
        return Shape(shape.head, shape.tail + (1,), False)
    if 0 <= dim <= len(shape.head):
        return Shape(shape.head[:dim] + (1,) + shape.head[dim:], shape.tail, False)
    return None


def reshape(shape: Shape | None, sizes: list[ast.AST]) -> Shape | None:
    """``view``/``reshape`` to ``sizes``: the rank is the number of sizes; ``-1`` keeps the batch axis when every
    other axis is a literal one on both sides."""
    if len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = list(sizes[0].elts)
    if not sizes or any(isinstance(s, ast.Starred) for s in sizes):
        return None
    values = [literal_int(s) for s in sizes]
    out = []
    for v in values:
        out.append(v if v is not None and v >= 0 else None)
    if values.count(-1) == 1 and shape is not None and shape.exact:
        rest = [a for a in shape.head if a != 1]
        if rest == [BATCH] and all(v == 1 for v in values if v != -1):
            out[values.index(-1)] = BATCH
    return Shape(tuple(out))


def broadcast(a: Shape, b: Shape) -> Shape | None:
    """The shape of an elementwise operation between exact shapes ``a`` and ``b`` (None when unknown)."""
    if not (a.exact and b.exact):
        if a == SCALAR:
            return b
        if b == SCALAR:
            return a
        return None
    rank = max(len(a.head), len(b.head))
    pa = (1,) * (rank - len(a.head)) + a.head
    pb = (1,) * (rank - len(b.head)) + b.head
    out = []
    for x, y in zip(pa, pb):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        else:
            return None
    return Shape(tuple(out))


def sized_shape(call: ast.Call) -> Shape | None:
    """The shape ``torch.zeros(2, n)`` or ``np.ones((3, 1))`` makes: a size that is not a literal is unknown;
    None when the sizes are given as a size object (``x.shape``, ``x.size()``) or unpacked."""
    args = call.args
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = list(args[0].elts)
    if not args or any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) == 1 and isinstance(args[0], ast.Call) and call_method(args[0]) in ("size",) or \
            len(args) == 1 and isinstance(args[0], ast.Attribute) and args[0].attr == "shape":
        return None  # torch.zeros(x.shape): a size object, its rank unknown here
    sizes = [literal_int(a) for a in args]
    return Shape(tuple(s if s is not None and s >= 0 else None for s in sizes))


def _dim_arg(call: ast.Call, position: int) -> object:
    node = keyword(call, "dim") or keyword(call, "axis")
    if node is None and len(call.args) > position:
        node = call.args[position]
    return "absent" if node is None else literal_int(node)


def method_output(method: str, call: ast.Call, args: list, shape: Shape) -> Shape | None:
    """What the shape method ``method`` (``flatten``, ``squeeze``, ``unsqueeze``, ``transpose``, ``permute``, ``t``,
    a reduction) called as ``call`` with positional ``args`` makes of ``shape``; None when not certain."""
    if method == "flatten":
        start = literal_int(args[0]) if args else (literal_int(keyword(call, "start_dim")) if keyword(call, "start_dim") else 0)
        if len(args) > 1 or keyword(call, "end_dim") is not None or start is None:
            return None
        if start == 0:
            return reshape(shape, [ast.Constant(-1)])
        if shape.exact and 0 < start < len(shape.head):
            return Shape(shape.head[:start] + (None,))
        if not shape.exact and 0 < start <= len(shape.head):
            return Shape(shape.head[:start] + (None,))
        return None
    if method == "squeeze":
        dim = _dim_arg(call, 0)
        if dim == "absent":
            return _squeeze(shape, None)
        return _squeeze(shape, [dim]) if isinstance(dim, int) else None
    if method == "unsqueeze":
        dim = _dim_arg(call, 0)
        return _unsqueeze(shape, dim) if isinstance(dim, int) else None
    if method in ("transpose", "permute", "t"):
        if not shape.exact:
            return None
        if method == "t":
            return Shape(tuple(reversed(shape.head))) if len(shape.head) <= 2 else None
        dims = [literal_int(a) for a in args]
        if method == "transpose" and len(dims) == 2 and None not in dims:
            a, b = (_axis(shape, d) for d in dims)  # type: ignore[arg-type]
            if a is None or b is None:
                return None
            axes = list(shape.head)
            axes[a], axes[b] = axes[b], axes[a]
            return Shape(tuple(axes))
        if method == "permute":
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                dims = [literal_int(a) for a in args[0].elts]
            if len(dims) != len(shape.head) or None in dims:
                return None
            order = [_axis(shape, d) for d in dims]  # type: ignore[arg-type]
            if None in order or len(set(order)) != len(order):
                return None
            return Shape(tuple(shape.head[i] for i in order))  # type: ignore[index]
        return None
    if method in _REDUCTIONS:
        dim = _dim_arg(call, 0)
        keep = constant(keyword(call, "keepdim")) is True or constant(keyword(call, "keepdims")) is True
        if dim == "absent":
            return None if keep else SCALAR
        if not isinstance(dim, int) or not shape.exact or len(call.args) > 1:
            return None
        pos = _axis(shape, dim)
        if pos is None:
            return None
        axes = list(shape.head)
        if keep:
            axes[pos] = 1
        else:
            del axes[pos]
        return Shape(tuple(axes))
    return None


def indexed_shape(shape: Shape, kinds: list[str]) -> Shape | None:
    """``shape`` indexed by items of ``kinds``: ``"drop"`` (an int) drops an axis, ``"keep"`` (``:``) keeps it,
    ``"part"`` (another slice) keeps it with an unknown size, ``"new"`` (None) adds one, ``"rest"`` (``...``)
    fills the rest."""
    if kinds.count("rest") > 1:
        return None
    if "rest" in kinds:
        at = kinds.index("rest")
        before, after = kinds[:at], kinds[at + 1:]
    else:
        before, after = kinds, []
    if not shape.exact:
        if after or any(k == "drop" for k in before) and len([k for k in before if k != "new"]) > len(shape.head):
            if before == [] and after == ["drop"] and shape.tail:
                return Shape(shape.head, shape.tail[:-1], False)
            return None
        head = _apply(list(shape.head), before)
        return Shape(tuple(head), shape.tail, False) if head is not None else None
    used = len([k for k in before + after if k != "new"])
    if used > len(shape.head):
        return None
    axes = list(shape.head)
    if "rest" in kinds:
        middle = axes[len([k for k in before if k != "new"]): len(axes) - len([k for k in after if k != "new"])]
        head = _apply(axes[: len([k for k in before if k != "new"])], before)
        tail_axes = axes[len(axes) - len([k for k in after if k != "new"]):]
        tail = _apply(tail_axes, after)
        if head is None or tail is None:
            return None
        return Shape(tuple(head + middle + tail))
    n = len([k for k in before if k != "new"])
    head = _apply(axes[:n], before)
    return Shape(tuple(head + axes[n:])) if head is not None else None


def _apply(axes: list, kinds: list[str]) -> list | None:
    out = []
    i = 0
    for kind in kinds:
        if kind == "new":
            out.append(1)
            continue
        if i >= len(axes):
            return None
        if kind in ("keep", "part"):
            out.append(axes[i] if kind == "keep" else None)  # a part of an axis: its size is not known
        i += 1
    return out + axes[i:]
