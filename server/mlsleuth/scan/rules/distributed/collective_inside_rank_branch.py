"""The ``collective-inside-rank-branch`` rule: a collective that only some ranks call (under ``if rank == 0:``)."""

from __future__ import annotations

import ast
import itertools
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.ranks import mentions_rank
from mlsleuth.scan.registry import Rule, register_rule

# Operations every rank of the group must call (point-to-point send/recv are meant to sit in rank branches).
_COLLECTIVES = frozenset(
    f"torch.distributed.{name}"
    for name in ("barrier", "all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "broadcast",
                 "broadcast_object_list", "reduce", "gather", "gather_object", "scatter", "scatter_object_list",
                 "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "monitored_barrier")
)
# the process's own rank as a value (`rank`, `local_rank`, `RANK`, `args.local_rank`, `dist.get_rank()`)
_RANK_VALUE = re.compile(r"^(?:local_|global_|node_)?rank$|^get_rank$", re.IGNORECASE)
# the ranks of a running job that the rank tests are evaluated for (-1, "not distributed", is no rank of a job)
_SAMPLE_RANKS = (0, 1, 2, 3)
# a flag that holds on the main process only (`is_main_process`, `accelerator.is_main_process`, `is_master`)
_MAIN_FLAG = re.compile(r"^(?:is_)?(?:local_|world_)?(?:main_process|main|master|master_process|global_zero|process_zero|world_process_zero)$",
                        re.IGNORECASE)


def _is_rank_value(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and not node.args:
        node = node.func
    if isinstance(node, ast.Name):
        return bool(_RANK_VALUE.match(node.id))
    return isinstance(node, ast.Attribute) and bool(_RANK_VALUE.match(node.attr))


def _int_values(node: ast.AST) -> list[int] | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return [-node.operand.value] if type(node.operand.value) is int else None
    if isinstance(node, ast.Constant):
        return [node.value] if type(node.value) is int else None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        values = [_int_values(e) for e in node.elts]
        return None if any(v is None or len(v) != 1 for v in values) else [v[0] for v in values]  # type: ignore[index]
    return None


_COMPARE = {ast.Eq: lambda a, b: a == b[0], ast.NotEq: lambda a, b: a != b[0], ast.Lt: lambda a, b: a < b[0],
            ast.LtE: lambda a, b: a <= b[0], ast.Gt: lambda a, b: a > b[0], ast.GtE: lambda a, b: a >= b[0],
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _holds(test: ast.AST, rank: int, atoms: dict[str, bool] | None = None) -> bool | None:
    """Whether a rank test written with integer constants holds on process ``rank`` (None: not such a test).
    ``atoms`` gives a value to the conditions that do not mention the rank (``mode == "train"``), by their text:
    they are the same on every rank."""
    if isinstance(test, ast.BoolOp):
        parts = [_holds(v, rank, atoms) for v in test.values]
        if any(p is None for p in parts):
            return None
        return all(parts) if isinstance(test.op, ast.And) else any(parts)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _holds(test.operand, rank, atoms)
        return None if inner is None else not inner
    flag = test.func if isinstance(test, ast.Call) and not test.args else test
    if isinstance(flag, ast.Name) and _MAIN_FLAG.match(flag.id) or isinstance(flag, ast.Attribute) and _MAIN_FLAG.match(flag.attr):
        return rank == 0
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE:
        left, right = test.left, test.comparators[0]
        op = type(test.ops[0])
        if not _is_rank_value(left) and op in (ast.Eq, ast.NotEq) and _is_rank_value(right):
            left, right = right, left
        values = _int_values(right)
        if _is_rank_value(left) and values and (len(values) == 1 or op in (ast.In, ast.NotIn)):
            return _COMPARE[op](rank, values)
    if atoms is not None and not mentions_rank(test):
        return atoms.get(ast.unparse(test))
    return None


def _rank_free_parts(test: ast.AST) -> list[ast.AST]:
    """The operands of a rank test's ``and``/``or``/``not`` that do not mention the rank."""
    if isinstance(test, ast.BoolOp):
        return [p for v in test.values for p in _rank_free_parts(v)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _rank_free_parts(test.operand)
    return [] if mentions_rank(test) else [test]


def _inside(node: ast.AST, roots: list[ast.AST]) -> bool:
    return any(node is sub for root in roots for sub in ast.walk(root))


@register_rule
class CollectiveInsideRankBranch(Rule):
    """A collective operation (`dist.barrier`, `all_reduce`, `broadcast`, ...) that only some ranks reach.

    What it finds: a `torch.distributed` collective called inside an `if` whose condition tests the rank
    (`if rank == 0:`, `if dist.get_rank() == 0:`, `if is_main_process():`, `local_rank in [-1, 0]`) when the
    other branch does not call the same collective.
    Why it matters: a collective returns only when every rank of the group has called it. Called by rank 0
    alone (to reduce a validation metric, or as a barrier around rank-0-only logging or saving), it waits
    for peers that never come, or pairs with an unrelated collective of theirs (DDP's gradient all-reduce)
    and fails or corrupts it. The job hangs without an error until the backend's timeout (often 30 minutes).
    How to confirm: run two processes (`mlsleuth trace SCRIPT --nproc-per-node 2`): the run hangs and each
    rank's stack shows where it waits (`ddp-rank-hung`).
    What to do instead: move the collective out of the rank branch so every rank calls it (all ranks
    all-reduce the metric, then rank 0 logs it), or keep rank-0-only work free of collectives.
    """

    id = "collective-inside-rank-branch"
    category = "distributed"
    severity = "error"
    triggers = ("distributed",)
    requires = (("rank", "main_process", "is_main", "master", "global_zero", "is_primary"),)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            name = vo.normalize(ctx.qualname(call))
            if name not in _COLLECTIVES:
                continue
            branch = self._rank_branch(ctx, call)
            if branch is None:
                continue
            other = branch.orelse if _inside(call, branch.body) else branch.body
            if any(vo.normalize(ctx.qualname(c)) == name for stmt in other for c in ctx.calls(stmt)):
                continue  # both branches call it: every rank reaches one
            if self._every_rank_calls_alike(ctx, call, name):
                continue  # `if rank != -1:` (on in every rank of a job), or the rank-0-first pair of barriers
            op = name.rsplit(".", 1)[-1]
            yield self.finding(
                ctx,
                call,
                f"only the ranks that pass `{ctx.segment(branch.test, 60)}` call dist.{op}(): the other ranks never "
                "join it, so the job hangs (or the collective pairs with an unrelated one)",
                observation=f"dist.{op}() at line {call.lineno} inside the rank test at line {branch.lineno}, with no "
                            f"dist.{op}() in the other branch",
                next_test="Run two processes (mlsleuth trace SCRIPT --nproc-per-node 2): the run hangs here on one rank.",
            )

    @classmethod
    def _every_rank_calls_alike(cls, ctx: FileContext, call: ast.AST, name: str) -> bool:
        """Every rank of a job calls this collective equally often in the enclosing function, judged from rank
        tests against integer constants: `if rank != -1:` (-1 means "not distributed", so every rank of a job
        passes), or `if rank not in (-1, 0): barrier()` paired with `if rank == 0: barrier()` further down (the
        other ranks wait while rank 0 goes first). Tests that cannot be evaluated this way answer False."""
        scope = ctx.enclosing_function(call) or ctx.tree
        calls: list[list[tuple[ast.AST, bool]]] = []
        for other in ctx.calls(scope):
            if vo.normalize(ctx.qualname(other)) != name or (ctx.enclosing_function(other) or ctx.tree) is not scope:
                continue
            tests: list[tuple[ast.AST, bool]] = []
            for anc in ctx.ancestors(other):
                if anc is scope:
                    break
                if isinstance(anc, ast.If) and mentions_rank(anc.test) and not _inside(other, [anc.test]):
                    tests.append((anc.test, _inside(other, anc.body)))
            calls.append(tests)
        # conditions beside the rank (`rank == 0 and mode == "train"`) hold alike on every rank: try each value
        free = sorted({ast.unparse(n) for tests in calls for test, _ in tests for n in _rank_free_parts(test)})
        if len(free) > 3:
            return False
        for values in itertools.product((False, True), repeat=len(free)):
            atoms = dict(zip(free, values))
            counts = dict.fromkeys(_SAMPLE_RANKS, 0)
            for tests in calls:
                for rank in _SAMPLE_RANKS:
                    verdicts = [_holds(test, rank, atoms) for test, _ in tests]
                    if any(v is None for v in verdicts):
                        return False
                    counts[rank] += all(v == want for v, (_, want) in zip(verdicts, tests))
            if len(set(counts.values())) != 1:
                return False
        return True

    @staticmethod
    def _rank_branch(ctx: FileContext, call: ast.AST) -> ast.If | None:
        for anc in ctx.ancestors(call):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return None
            if isinstance(anc, ast.If) and mentions_rank(anc.test) and not _inside(call, [anc.test]):
                return anc
        return None
