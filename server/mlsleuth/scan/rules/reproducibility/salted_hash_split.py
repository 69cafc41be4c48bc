"""The ``salted-hash-split`` rule: data assigned to a split or bucket by Python's built-in, per-process `hash()`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


def _builtin_hash(ctx: FileContext, node: ast.AST) -> ast.Call | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hash"
            and len(node.args) == 1 and "hash" not in ctx.imports):
        return node
    return None


_INT_CALLS = {"int", "len", "round", "ord", "os.getuid", "os.getpid", "os.getppid", "os.getgid"}


def _deterministic_argument(ctx: FileContext, arg: ast.AST) -> bool:
    """Integers hash to themselves: `hash(7)`, `hash(int(x))`, `hash(os.getuid())`, `hash(i)` of a range index,
    either side of a conditional, and tuples of them (a tuple of ints hashes the same in every process)."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, int)
    if isinstance(arg, ast.IfExp):
        return _deterministic_argument(ctx, arg.body) and _deterministic_argument(ctx, arg.orelse)
    if isinstance(arg, ast.Tuple):
        return bool(arg.elts) and all(_deterministic_argument(ctx, e) for e in arg.elts)
    if isinstance(arg, ast.Name):
        return _range_index(ctx, arg)
    if isinstance(arg, ast.Call):
        name = arg.func.id if isinstance(arg.func, ast.Name) else (ctx.qualname(arg) or "")
        return name in _INT_CALLS
    return False


def _range_index(ctx: FileContext, name: ast.Name) -> bool:
    """``name`` is the target of an enclosing ``for name in range(...)`` (a loop or a comprehension)."""
    for anc in ctx.ancestors(name):
        loops = [anc] if isinstance(anc, ast.For) else list(getattr(anc, "generators", []) or [])
        for loop in loops:
            if (isinstance(loop.target, ast.Name) and loop.target.id == name.id and isinstance(loop.iter, ast.Call)
                    and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"):
                return True
    return False


def _inside_dunder_hash(ctx: FileContext, node: ast.AST) -> bool:
    func = ctx.enclosing_function(node)
    return func is not None and func.name == "__hash__"


@register_rule
class SaltedHashSplit(Rule):
    """Data assigned to a split or bucket by Python's built-in, per-process `hash()`.

    What it finds: `hash(key) % n` (and `abs(hash(key)) % n`), the usual way to put a record in a
    hold-out set, a fold, a shard or a bucket, where `key` is not an integer: a string id, a tuple, a
    path. Built-in `hash()` used for set membership, `__hash__` or de-duplication in one process is
    left alone, and so are stable digests (`hashlib`, `zlib.crc32`, `xxhash`).
    Why it matters: Python salts the hash of `str` and `bytes` (and of tuples containing them) with
    a random seed per interpreter process (`PYTHONHASHSEED`). The same id lands in a different
    bucket in every run: the training script and a later evaluation script disagree on which
    records were held out, so the "held-out" score includes training data, and a resumed run
    trains on a different split. Nothing fails and the leak is invisible in the numbers.
    How to confirm: run `python -c "print(hash('patient-17') % 100)"` twice: the results differ.
    What to do instead: use a stable digest, e.g.
    `int(hashlib.md5(key.encode()).hexdigest(), 16) % 100` or `zlib.crc32(key.encode()) % 100`, or
    store the split assignment once and load it everywhere.
    """

    id = "salted-hash-split"
    category = "reproducibility"
    severity = "warning"
    triggers = ("hash(",)
    requires = (("%",),)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Mod):
                continue
            left = node.left
            if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "abs" and len(left.args) == 1:
                left = left.args[0]
            call = _builtin_hash(ctx, left)
            if call is None or _deterministic_argument(ctx, call.args[0]) or _inside_dunder_hash(ctx, node):
                continue
            yield self.finding(
                ctx,
                node,
                f"`{ctx.segment(node, 60)}` buckets by Python's built-in hash(), which is salted per process for strings,"
                " bytes and tuples of them: every run (train, evaluate, resume) puts the same key in a different bucket",
                next_test="run the bucketing twice in fresh interpreters (`python -c \"print(hash('some-id') % 100)\"`): the results differ",
            )
