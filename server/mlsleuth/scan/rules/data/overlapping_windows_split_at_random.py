"""The ``overlapping-windows-split-at-random`` rule: overlapping time-series windows divided by a random split."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import splits
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.registry import Rule, register_rule

_WINDOW_VIEWS = ("sliding_window_view",)


def _random_split(ctx: FileContext, split: ast.AST) -> str | None:
    """What makes ``split`` random: `train_test_split` (shuffles by default), `random_split`, a shuffling
    scikit-learn splitter. None for a chronological cut, `shuffle=False`, a project helper or anything unknown."""
    if not isinstance(split, ast.Call):
        return None
    qual = vo.normalize(ctx.qualname(split)) or ""
    if qual in splits.TORCH_SPLITS:
        return "`random_split`"
    if qual == "sklearn.model_selection.train_test_split":
        shuffle = next((kw.value for kw in split.keywords if kw.arg == "shuffle"), None)
        return "`train_test_split` (it shuffles by default)" if shuffle is None or constant(shuffle) is True else None
    if call_method(split) == "split" and isinstance(split.func, ast.Attribute):
        bound = vo.value(ctx, split.func.value)
        if isinstance(bound, ast.Call):
            name = (ctx.qualname(bound) or "").rsplit(".", 1)[-1]
            if name in ("ShuffleSplit", "StratifiedShuffleSplit"):
                return f"`{name}`"
            if name in ("KFold", "StratifiedKFold") and any(
                    kw.arg == "shuffle" and constant(kw.value) is True for kw in bound.keywords):
                return f"`{name}(shuffle=True)`"
    return None


def _window_slice(node: ast.AST, index: str) -> ast.AST | None:
    """The window length ``w`` of ``seq[i : i + w]`` (or ``seq[i : w + i]``) with loop variable ``index``."""
    if not (isinstance(node, ast.Subscript)):
        return None
    sl = node.slice
    if isinstance(sl, ast.Tuple) and sl.elts:
        sl = sl.elts[0]
    if not isinstance(sl, ast.Slice) or not isinstance(sl.lower, ast.Name) or sl.lower.id != index:
        return None
    upper = sl.upper
    if not isinstance(upper, ast.BinOp) or not isinstance(upper.op, ast.Add):
        return None
    if isinstance(upper.left, ast.Name) and upper.left.id == index:
        return upper.right
    if isinstance(upper.right, ast.Name) and upper.right.id == index:
        return upper.left
    return None


def _overlapping_stride(loop_iter: ast.AST, length: ast.AST) -> bool:
    """Whether ``range(...)`` walks with a stride shorter than the window ``length`` (no stride: 1)."""
    if not (isinstance(loop_iter, ast.Call) and isinstance(loop_iter.func, ast.Name) and loop_iter.func.id == "range"):
        return False
    size = constant(length)
    if size is not ... and (not isinstance(size, int) or size <= 1):
        return False
    if len(loop_iter.args) < 3:
        return True
    step = loop_iter.args[2]
    if constant(step) == 1:
        return True
    if isinstance(constant(step), int) and isinstance(size, int):
        return 0 < constant(step) < size
    return False  # a stride the scan cannot compare with the window: stay silent


def _windows_in(ctx: FileContext, root: ast.AST) -> ast.AST | None:
    """The first overlapping sliding-window construction under ``root``: `seq[i:i + w]` taken in a loop (or a
    comprehension) over `range` with a stride below `w`, `sliding_window_view`, or `.unfold(dim, size, 1)`."""
    for sub in ctx.subtree(root):
        if isinstance(sub, (ast.For, ast.comprehension)) and isinstance(sub.target, ast.Name):
            body = sub.body if isinstance(sub, ast.For) else [ctx.parent(sub)]
            for stmt in body:
                for node in ctx.subtree(stmt) if stmt is not None else ():
                    length = _window_slice(node, sub.target.id)
                    if length is not None and _overlapping_stride(sub.iter, length):
                        return node
        if isinstance(sub, ast.Call):
            name = (ctx.qualname(sub) or call_method(sub) or "").rsplit(".", 1)[-1]
            if name in _WINDOW_VIEWS:
                return sub
            if call_method(sub) == "unfold" and len(sub.args) == 3:
                size, step = constant(sub.args[1]), constant(sub.args[2])
                if isinstance(size, int) and isinstance(step, int) and 0 < step < size:
                    return sub
    return None


def _windowed(ctx: FileContext, value: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.AST] | None:
    """Where ``value`` (one step upstream of the split data) cut overlapping windows: in place, in a project
    helper it calls (`create_sequences(series, 30)`), or in the `__getitem__` of a project dataset it builds."""
    if value is None or depth > 3:
        return None
    hit = _windows_in(ctx, value)
    if hit is not None:
        return ctx, hit
    for call in (c for c in ctx.subtree(value) if isinstance(c, ast.Call)):
        built = vo.constructed_class(ctx, call)
        if built is not None:
            cctx, cls = built
            getitem = vo.class_method(cctx, cls, "__getitem__")
            if getitem is not None:
                gctx, gfunc = getitem
                hit = _item_window(gctx, gfunc)
                if hit is not None:
                    return gctx, hit
            continue
        helper = vo.helper_definition(ctx, call)
        if helper is not None:
            hctx, hfunc = helper
            hit = _windows_in(hctx, hfunc)
            if hit is not None:
                return hctx, hit
    return None


def _item_window(ctx: FileContext, getitem: ast.AST) -> ast.AST | None:
    """``self.data[idx : idx + self.window]`` in ``__getitem__(self, idx)``: item ``idx`` is the window starting
    at ``idx``, so neighbouring items share all but one step."""
    params = vo.function_params(getitem)
    if len(params) < 2:
        return None
    index = params[1]
    if any(index in [n.id for n in ast.walk(v) if isinstance(n, ast.Name)] and not isinstance(v, ast.Name)
           for _l, _s, v in vo.bindings(ctx, getitem).get(index, []) if v is not None):
        return None  # idx rescaled first (`idx = idx * self.stride`): stride unknown
    for node in ctx.subtree(getitem):
        length = _window_slice(node, index)
        size = constant(length)
        if length is not None and (size is ... or isinstance(size, int) and size > 1):
            return node
    return None


def _appended_window(ctx: FileContext, mutation: ast.AST) -> tuple[FileContext, ast.AST] | None:
    """``windows.append(seq[i:i + w])`` (or of a name bound to that slice) in a loop over `range` whose
    stride is shorter than ``w``."""
    loops = [lp for lp in ctx.enclosing_loops(mutation) if isinstance(lp, ast.For) and isinstance(lp.target, ast.Name)]
    if not loops:
        return None
    loop = loops[0]
    index = loop.target.id  # type: ignore[union-attr]
    used = {n.id for n in ast.walk(mutation) if isinstance(n, ast.Name)}
    candidates = [mutation] + [
        v for name, entries in vo.bindings(ctx, loop).items() if name in used for _l, _s, v in entries if v is not None]
    for root in candidates:
        for node in ast.walk(root):
            length = _window_slice(node, index)
            if length is not None and _overlapping_stride(loop.iter, length):
                return ctx, node
    return None


@register_rule
class OverlappingWindowsSplitAtRandom(Rule):
    """Overlapping time-series windows divided into train and held-out sets by a random split.

    What it finds: a random split (`train_test_split` without `shuffle=False`, torch's `random_split`,
    `ShuffleSplit`, `KFold(shuffle=True)`) of samples that were cut from one series as sliding windows
    with a stride shorter than the window: `seq[i:i + w]` appended in a `for i in range(...)` loop or a
    comprehension, `sliding_window_view`, `.unfold(dim, size, 1)`, a project helper that does one of these
    (`X, y = create_sequences(series, 30)`), or a `Dataset` whose item `idx` is `data[idx:idx + w]`.
    A chronological cut (`X[:k], X[k:]`, `shuffle=False`), windows with a stride of the whole window, and
    splits of series ids before windowing are left alone.
    Why it matters: neighbouring windows share all but one time step. Shuffled into both sides, nearly
    every held-out window has a training twin shifted by one step, and its target sits inside that twin's
    input: the validation score measures interpolation of a seen series, not forecasting, and collapses on
    data after the training period.
    How to confirm: split chronologically (first 80% of the windows for training, the rest held out, with a
    gap of one window between them) and compare the held-out error with the random split's.
    What to do instead: split the series by time before cutting windows (or cut, then take contiguous
    blocks with a gap of `w` steps), and use `TimeSeriesSplit` instead of shuffled folds.
    """

    id = "overlapping-windows-split-at-random"
    category = "data"
    severity = "warning"
    triggers = ("train_test_split", "random_split", "ShuffleSplit", "KFold")
    reach = "project"

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        for split, data in splits.splits(ctx):
            if id(split) in seen:
                continue
            why = _random_split(ctx, split)
            if why is None:
                continue
            scope = ctx.enclosing_function(split) or ctx.tree
            for step in splits.upstream(ctx, data, scope, split.lineno):
                found = _appended_window(ctx, step.node) if step.mutation else _windowed(ctx, step.value)
                if found is None:
                    continue
                wctx, where = found
                place = "" if wctx is ctx else f" ({wctx.display_path}:{where.lineno})"
                seen.add(id(split))
                yield self.finding(
                    ctx,
                    split,
                    f"{why} divides overlapping sliding windows (`{wctx.segment(where, 50)}`{place}, line"
                    f" {where.lineno}) at random: each held-out window has training neighbours that share all but"
                    " one of its steps, so the held-out score measures a seen series",
                    next_test="split the windows chronologically (first 80% train, a gap of one window, the rest"
                    " held out) and compare the held-out error",
                )
                break
