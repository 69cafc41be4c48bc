"""The ``cache-key-omits-setting`` rule: preprocessed data cached under a path that leaves out a setting it depends on."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis.context import FileContext, FunctionNode, dotted
from mlsleuth.scan.analysis.value_origins import words
from mlsleuth.scan.registry import Rule, register_rule

# function -> (position of the stored value, position of the path)
_SAVES = {
    "torch.save": (0, 1), "joblib.dump": (0, 1), "numpy.save": (1, 0), "numpy.savez": (1, 0),
    "numpy.savez_compressed": (1, 0),
}
_RECEIVER_SAVES = frozenset({"save_to_disk", "to_pickle", "to_parquet", "to_feather"})  # value.save_to_disk(path)
_DUMPS = frozenset({"pickle.dump", "dill.dump", "json.dump"})  # (value, open file)
_LOADS = frozenset({"torch.load", "joblib.load", "numpy.load", "load_from_disk", "read_pickle", "read_parquet",
                    "read_feather", "pickle.load", "dill.load", "json.load"})
# words of a setting that changes what preprocessing produces (lengths, windows, rates, vocabularies)
_SETTING_WORDS = frozenset({
    "max", "min", "len", "length", "seq", "block", "stride", "window", "context", "overlap", "truncation", "truncate",
    "resolution", "mels", "mel", "hop", "fft", "vocab", "lowercase", "sr", "sampling", "crop",
})
_SIZE_OWNERS = frozenset({"image", "img", "patch", "input", "crop", "chunk", "frame", "window", "block"})
_NOT_SETTINGS = frozenset({"dir", "path", "file", "root", "cache", "overwrite", "device", "rank", "gpu", "gpus", "workers",
                           "verbose", "debug", "name", "batch"})


def _setting(name: str) -> bool:
    parts = words(name)
    if not parts or _NOT_SETTINGS.intersection(parts):
        return False
    return bool(_SETTING_WORDS.intersection(parts)) or ("size" in parts and bool(_SIZE_OWNERS.intersection(parts)))


def _call_name(call: ast.Call) -> str:
    name = dotted(call.func) or ""
    return name


def _method(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


class _Function:
    """The local bindings of one function, to follow a value back to what it was built from."""

    def __init__(self, ctx: FileContext, fn: FunctionNode) -> None:
        self.fn = fn
        self.params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        self.bindings: dict[str, list[ast.AST]] = {}
        self.helpers: dict[str, ast.AST] = {}
        for node in ast.walk(fn):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not fn:
                if not isinstance(node, ast.Lambda):
                    self.helpers[node.name] = node
                continue
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self.bindings.setdefault(ast.unparse(target), []).append(node.value)
                    if isinstance(target, ast.Tuple):
                        for elt in target.elts:
                            self.bindings.setdefault(ast.unparse(elt), []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self.bindings.setdefault(ast.unparse(node.target), []).append(node.value)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self.bindings.setdefault(ast.unparse(item.optional_vars), []).append(item.context_expr)

    def closure(self, expr: ast.AST, skip: set[str]) -> list[ast.AST]:
        """``expr`` and every local binding or nested helper it reads, transitively."""
        out: list[ast.AST] = []
        seen: set[str] = set(skip)
        todo = [expr]
        while todo:
            cur = todo.pop()
            out.append(cur)
            for node in ast.walk(cur):
                if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
                    key = ast.unparse(node)
                    if key in seen:
                        continue
                    seen.add(key)
                    todo.extend(self.bindings.get(key, ()))
                    if isinstance(node, ast.Name) and node.id in self.helpers:
                        todo.append(self.helpers[node.id])
        return out

    def settings(self, exprs: list[ast.AST]) -> dict[str, ast.AST]:
        """Run settings read by ``exprs``: `args.max_seq_length`-like attributes and parameters of the function."""
        found: dict[str, ast.AST] = {}
        for expr in exprs:
            for node in ast.walk(expr):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _setting(node.attr):
                    base = dotted(node.value)
                    if base is not None and (base in self.params or base.startswith("self.")):
                        found.setdefault(f"{base}.{node.attr}", node)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.params and _setting(node.id):
                    found.setdefault(node.id, node)
        return found


def _mentions(exprs: list[ast.AST]) -> tuple[set[str], set[str]]:
    """What a path expression reads: full dotted names and last name parts."""
    full: set[str] = set()
    last: set[str] = set()
    for expr in exprs:
        for node in ast.walk(expr):
            if isinstance(node, (ast.Name, ast.Attribute)):
                text = dotted(node)
                if text:
                    full.add(text)
                    last.add(text.rsplit(".", 1)[-1])
    return full, last


def _saves(ctx: FileContext, fn: FunctionNode, local: _Function) -> Iterator[tuple[ast.Call, ast.expr, ast.expr]]:
    """(call, stored value, path) for each write of a computed value to a file in ``fn``."""
    for call in ctx.calls(fn):
        qual = ctx.qualname(call) or _call_name(call)
        method = _method(call) or ""
        if method in _RECEIVER_SAVES and isinstance(call.func, ast.Attribute) and call.args and qual not in _SAVES:
            yield call, call.func.value, call.args[0]
        elif qual in _SAVES:
            value_at, path_at = _SAVES[qual]
            if len(call.args) > max(value_at, path_at):
                yield call, call.args[value_at], call.args[path_at]
        elif qual in _DUMPS and len(call.args) >= 2:
            path = _opened_path(local, call.args[1])
            if path is not None:
                yield call, call.args[0], path


def _opened_path(local: _Function, handle: ast.expr) -> ast.expr | None:
    """``f`` of ``with open(path, "wb") as f`` (or ``open(path, "wb")`` itself) -> ``path``."""
    for expr in [handle, *local.bindings.get(ast.unparse(handle), ())]:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "open" and expr.args:
            return expr.args[0]
    return None


def _loaded_paths(ctx: FileContext, fn: FunctionNode, local: _Function) -> set[str]:
    paths: set[str] = set()
    for call in ctx.calls(fn):
        qual = ctx.qualname(call) or _call_name(call)
        if (qual in _LOADS or qual.rsplit(".", 1)[-1] in _LOADS) and call.args:
            arg = _opened_path(local, call.args[0]) or call.args[0]
            paths.add(ast.unparse(arg))
    return paths


def _file_name_part(expr: ast.expr) -> ast.expr:
    """The file-name part of a path expression: the last piece of ``os.path.join(...)`` or ``dir / name``."""
    if isinstance(expr, ast.Call) and (dotted(expr.func) or "").endswith("path.join") and expr.args:
        return expr.args[-1]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return expr.right
    return expr


def _reads_whole(exprs: list[ast.AST], bases: set[str]) -> bool:
    """The path reads a whole config object (``hash(str(vars(args)))``), not single fields of it."""
    for expr in exprs:
        attr_bases = {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id in bases and id(node) not in attr_bases:
                return True
    return False


@register_rule
class CacheKeyOmitsSetting(Rule):
    """Cached features reloaded under a name that omits a setting.

    What it finds: a function that loads a cache file when it exists and otherwise builds the data and
    saves it there (`torch.save`, `pickle.dump`, `np.save`, `joblib.dump`, `save_to_disk`, `to_pickle`),
    where the data is built with a length-like run setting (`args.max_seq_length`, `cfg.block_size`,
    `doc_stride`, `n_mels`, `image_size`, a `max_len` parameter; also through local names and nested
    tokenize helpers) that the cache path (followed through the names it is built from) never mentions.
    Why it matters: the second run with a different setting finds the old file and silently trains
    and evaluates on data built with the first run's setting: a sequence-length sweep compares
    identical data while its logs and output folders say otherwise.
    How to confirm: run twice with different values of the setting and compare the shape of the loaded
    features (or delete the cache between runs); the shapes do not change.
    What to do instead: put every setting the cached content depends on into the cache file name (or a
    hash of them), or cache only setting-independent data and apply the setting afterwards.
    """

    id = "cache-key-omits-setting"
    category = "data"
    severity = "warning"
    triggers = ("save", "dump", "to_pickle", "to_parquet", "to_feather")
    requires = (("load", "read_pickle", "read_parquet", "read_feather"), ("exists", "isfile"))

    def check(self, ctx: FileContext):
        for fn in ctx.functions:
            if not any(_method(c) in {"exists", "isfile"} for c in ctx.calls(fn)):
                continue  # no "is it cached already?" test
            local = _Function(ctx, fn)
            for call, value, path in _saves(ctx, fn, local):
                if ast.unparse(path) not in _loaded_paths(ctx, fn, local):
                    continue
                key_exprs = local.closure(path, set())
                full, last = _mentions(key_exprs)
                built = local.closure(value, {ast.unparse(path)})
                missing = [name for name in local.settings(built)
                           if name not in full and name.rsplit(".", 1)[-1] not in last]
                if not missing or _reads_whole(key_exprs, {m.split(".", 1)[0] for m in missing}):
                    continue
                where = _file_name_part(next((b for b in local.bindings.get(ast.unparse(path), ()) if isinstance(b, ast.expr)), path))
                yield self.finding(
                    ctx,
                    where,
                    f"the cache file `{ctx.segment(path, 40)}` is reused when it exists, but its name leaves out "
                    f"{', '.join(f'`{m}`' for m in missing)}, which the cached data is built with: a run with another "
                    f"value silently loads the old data",
                    observation=f"saved by `{ctx.segment(call, 60)}`; the path is built from `{ctx.segment(where, 80)}`",
                    next_test=f"Run twice with different {missing[0]} and print the loaded features' shape: it does not change.",
                )

