"""The ``accumulator-not-reset`` rule: a running total, list or meter reported per period but never reset for it."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import accumulators as acc
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import LOOPS, FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

# Words of a loop's iterable or target that say it walks the data of one pass (batches, samples),
# not the periods (epochs, episodes, rounds, evaluation passes) a summary is reported for.
_DATA_WORDS = frozenset(
    {
        "loader", "dataloader", "data", "batch", "batches", "dataset", "ds", "dl", "sample", "samples", "iterator",
        "examples", "example", "rows", "row", "pairs", "preds", "predictions", "outputs", "labels", "targets",
        "images", "inputs", "texts", "tokens", "lines", "files", "file", "paths", "path", "records", "chunks", "chunk",
    }
)
_PERIOD_WORDS = frozenset({"epoch", "epochs", "episode", "episodes", "round", "rounds", "fold", "folds", "phase", "phases", "ep", "generation", "generations"})
# Words of a sum's own name that say it is meant for one period (its bare value is reported per period).
_PER_PERIOD_WORDS = frozenset({"epoch", "episode", "ep", "episodic"})
# Words of an accumulator's own name that say it is meant to span the whole run.
_CUMULATIVE_WORDS = frozenset({"cumulative", "cum", "cumsum", "overall", "lifetime", "regret", "history", "hist"})
_WRAPPERS = frozenset({"enumerate", "tqdm", "trange", "track", "progress_bar", "iter", "notebook", "auto"})
_TIME_HOOK_WORDS = frozenset({"step", "batch"})


def _names(expr: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            out.update(vo.words(node.id))
        elif isinstance(node, ast.Attribute):
            out.update(vo.words(node.attr))
    return out


def period_loop(loop: ast.AST) -> bool:
    """A loop over periods (epochs, episodes, rounds, splits, a ``while``), not over the batches or items of one pass."""
    if isinstance(loop, ast.While):
        return True
    target_words = _names(loop.target)
    if target_words & _PERIOD_WORDS:
        return True
    it = loop.iter
    while isinstance(it, ast.Call) and (dotted(it.func) or "").rsplit(".", 1)[-1] in _WRAPPERS and it.args:
        it = it.args[0]
    if isinstance(it, ast.Call):
        last = (dotted(it.func) or "").rsplit(".", 1)[-1]
        if last in ("range", "trange", "count"):
            return len(it.args) < 3 and not (_names(it) & _DATA_WORDS)
        if last in ("items", "keys"):
            return not (_names(it) & _DATA_WORDS)
        return False
    if isinstance(it, (ast.List, ast.Tuple)):
        return all(isinstance(e, (ast.Constant, ast.Name, ast.Attribute)) for e in it.elts) and len(it.elts) <= 8
    words = _names(it) | target_words
    return bool(words & _PERIOD_WORDS) and not (words & _DATA_WORDS)


def _outermost_after(ctx: FileContext, scope: ast.AST, created: ast.AST | None) -> list[ast.AST]:
    """Loops of ``scope`` that run after ``created`` and sit in no other such loop."""
    out = []
    for loop in acc.iter_loops(ctx, scope):
        if created is not None and (loop.lineno <= created.lineno or _inside(ctx, created, loop)):
            continue
        enclosing = [a for a in ctx.ancestors(loop) if isinstance(a, LOOPS)]
        if any(created is None or not _inside(ctx, created, a) for a in enclosing if _inside(ctx, a, scope)):
            continue
        out.append(loop)
    return out


def _inside(ctx: FileContext, node: ast.AST, root: ast.AST) -> bool:
    return any(a is root for a in ctx.ancestors(node))


class _Verdict:
    """Why an accumulator in one period loop is a bug (or None): the node to report and the wording."""

    def __init__(self, node: ast.AST, via: str = "") -> None:
        self.node = node
        self.via = via


def _module_function(ctx: FileContext, call: ast.Call, name: str) -> ast.AST | None:
    """The function of this module ``call`` runs, when it sees the module-level ``name`` (no parameter or local
    of that name hides it)."""
    target = vo.helper_definition(ctx, call)
    if target is None or target[0] is not ctx:
        return None
    func = target[1]
    if not _sees_global(ctx, func, name):
        return None
    return func


def _sees_global(ctx: FileContext, func: ast.AST, name: str) -> bool:
    args = func.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} | \
        {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    if name in params:
        return False
    declared = any(isinstance(n, ast.Global) and name in n.names for n in ctx.walk_scope(func))
    return declared or name not in ctx.assignments(func)


def _judge_period(ctx: FileContext, outer: ast.AST, name: str, kind: str, found: acc.Uses,
                  module_global: bool = False) -> _Verdict | None:
    """The accumulator ``name`` is updated in an inner loop of ``outer``, read in it, and never reset in it."""
    if found.resets or found.decays or set(vo.words(name.rsplit(".", 1)[-1])) & _CUMULATIVE_WORDS:
        return None
    inner_updates = [u for u in found.updates if len(acc.loops_between(ctx, u, outer)) >= 2]
    value_updates = [u for u in found.value_updates if len(acc.loops_between(ctx, u, outer)) >= 2]
    reads = list(found.reads)
    via_call = None
    for call, arg in found.passed:
        effect = acc.helper_effect(ctx, call, arg, kind)
        if effect is None:
            if acc.named_reset(call):
                return None
            continue
        if effect.resets:
            return None
        repeated = effect.updates_in_loop or (effect.updates and len(acc.loops_between(ctx, call, outer)) >= 2)
        if repeated:
            inner_updates.append(call)
            if effect.value_updates:
                value_updates.append(call)
            via_call = via_call or call
        if effect.reads:
            reads.append(call)
    if name.startswith("self.") or module_global:
        for call in ctx.calls(outer):
            if name.startswith("self."):
                effect = acc.method_effect(ctx, call, name, kind)
            else:  # a function of this module that updates, reads or resets the global (a train_step)
                func = _module_function(ctx, call, name)
                effect = acc.scope_effect(ctx, func, name, kind) if func is not None else None
            if effect is None:
                continue
            if effect.resets:
                return None
            if effect.updates_in_loop or (effect.updates and len(acc.loops_between(ctx, call, outer)) >= 2):
                inner_updates.append(call)
                if effect.value_updates:
                    value_updates.append(call)
            if effect.reads:
                reads.append(call)
    if not reads and kind == acc.NUMBER and set(vo.words(name.rsplit(".", 1)[-1])) & _PER_PERIOD_WORDS:
        reads = [r for r in found.plain_reads if len(acc.loops_between(ctx, r, outer)) == 1]  # print(epoch_loss)
    if not inner_updates or not reads:
        return None
    if kind == acc.NUMBER and not value_updates:
        return None
    if via_call is not None and via_call in reads:
        return _Verdict(via_call, "helper")
    return _Verdict(reads[0], "")


_EXTERNAL_RESET = r"\.{attr}\s*(?:\.\s*(?:reset\w*|clear|zero_|fill_)\s*\(|=[^=])"
_GLOBAL_RESET = r"(?<![\w.]){name}\s*(?:\.\s*(?:reset\w*|clear|zero_|fill_)\s*\(|=[^=]|\[\s*:\s*\]\s*=)|del\s+{name}\b"


@register_rule
class AccumulatorNotReset(Rule):
    """A running total, list or meter reported every period but never reset.

    What it finds: an accumulator created once before a loop over periods (epochs, episodes,
    evaluation rounds, the calls of a long-lived object's `validate()`): a sum (`total_loss = 0`),
    a list (`preds = []`), a confusion matrix (`np.zeros((k, k))`) or a meter / metric object
    (`AverageMeter()`, `torchmetrics.Accuracy()`), that is updated in an inner loop (`+=`,
    `.append`, `.update(...)`), directly or by a helper that receives it (in this file or another
    module), and read as a summary inside every period (`meter.avg`, `metric.compute()`,
    `total / n`, `np.mean(preds)`), with no reset anywhere in the period loop: no re-assignment,
    `.reset()`, `.clear()`, `del x[:]`, and no helper that resets it. For an attribute created in
    `__init__` the class must never reset it (a Lightning `self.log(name, metric)` of the object
    itself counts as a reset); for Lightning hooks, a list appended to every step and joined
    (`torch.cat(self.val_preds)`) in the epoch-end hook counts as read there. A module-level
    accumulator (a TF tutorial's `train_loss = tf.keras.metrics.Mean()`) counts too, updated and read
    by the module's own functions (`train_step`) inside a period loop, when nothing in the file
    re-binds, resets or clears it. Counts and clocks alone (`step += 1`, `seen += x.size(0)`), moving
    averages with a decay, windowed meters (`deque(maxlen=...)`, `SmoothedValue(window_size=...)`)
    and summaries read once after the loop stay silent.
    Why it matters: every period's number is then a running average over all periods so far, not
    the current model's score: the validation curve lags and flattens, later epochs look worse (or
    better) than they are, and a best-checkpoint or early-stopping decision made on it picks the
    wrong epoch.
    How to confirm: print the accumulator's count (or the list's length) each period: it grows by
    the size of one pass every period instead of starting again.
    What to do instead: create the accumulator inside the period loop, or call its `reset()` /
    `.clear()` (or set it back to zero) at the start of each period (in a `validate()` method, at its
    top; in Lightning, in `on_validation_epoch_end` after `compute()`).
    """

    id = "accumulator-not-reset"
    category = "evaluation"
    severity = "warning"
    reach = "project"
    triggers = ("for ", "while ", "epoch")

    def check(self, ctx: FileContext):
        seen: set[tuple[str, int]] = set()
        for scope in [ctx.tree, *ctx.functions]:
            for name, entries in ctx.assignments(scope).items():
                for _line, stmt, value in entries:
                    if not isinstance(stmt, ast.Assign):
                        continue
                    kind = acc.creation_kind(ctx, value)
                    if kind is None:
                        continue
                    for finding in self._local(ctx, scope, name, kind, stmt, seen, module_global=scope is ctx.tree):
                        yield finding
        for name, entries in ctx.assignments(ctx.tree).items():
            if len(entries) != 1 or not isinstance(entries[0][1], ast.Assign):
                continue
            kind = acc.creation_kind(ctx, entries[0][2])
            if kind is not None:
                yield from self._module_level(ctx, name, kind, entries[0][1], seen)
        for cls in ctx.classes:
            yield from self._attributes(ctx, cls, seen)

    # -- a module-level accumulator that the functions of the module update and read ------------------------
    def _module_level(self, ctx, name, kind, created, seen):
        if set(vo.words(name)) & _CUMULATIVE_WORDS or self._global_reset(ctx, name, created):
            return
        for func in ctx.functions:
            if ctx.enclosing_function(func) is not None or not _sees_global(ctx, func, name):
                continue
            yield from self._local(ctx, func, name, kind, None, seen, owner=f"module level, line {created.lineno}",
                                   module_global=True)

    @staticmethod
    def _global_reset(ctx, name, created) -> bool:
        """Anything in the file that could start the global again: a re-binding, ``.reset()``, ``.clear()``."""
        pattern = re.compile(_GLOBAL_RESET.format(name=re.escape(name)))
        for i, text in enumerate(ctx.source.splitlines(), 1):
            if i != created.lineno and pattern.search(text):
                return True
        return False

    # -- a local created before the period loop ----------------------------------------------------------
    def _local(self, ctx, scope, name, kind, created, seen, *, owner: str = "", module_global: bool = False):
        for outer in _outermost_after(ctx, scope, created):
            if not period_loop(outer):
                continue
            key = (name, outer.lineno)
            if key in seen:
                continue
            found = acc.uses(ctx, outer, name, kind)
            verdict = _judge_period(ctx, outer, name, kind, found, module_global)
            if verdict is None:
                continue
            seen.add(key)
            where = owner or f"line {created.lineno}" if created is not None else owner
            node = verdict.node if verdict.via == "helper" or created is None else created
            helper = f" (`{dotted(node.func) or 'the helper'}(...)` updates it in its own loop)" if verdict.via == "helper" else ""
            yield self.finding(
                ctx,
                node,
                f"`{name}` (created at {where}, outside the loop at line {outer.lineno}) accumulates over every "
                f"iteration of that loop{helper} and is read each iteration, but nothing resets it there: each "
                f"iteration reports a running value over all iterations so far, not the current one",
                next_test=f"Print how many items `{name}` holds (its count or length) each iteration of the loop at "
                f"line {outer.lineno}: it keeps growing instead of starting again.",
            )

    # -- an attribute created in __init__ ---------------------------------------------------------------
    def _attributes(self, ctx, cls, seen):
        init = ctx.method(cls, "__init__")
        if init is None:
            return
        methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m is not init]
        if not methods:
            return
        for node in ctx.walk_scope(init):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            name = dotted(node.targets[0])
            if not name or not name.startswith("self.") or name.count(".") != 1:
                continue
            kind = acc.creation_kind(ctx, node.value)
            if kind is None or set(vo.words(name.rsplit(".", 1)[-1])) & _CUMULATIVE_WORDS:
                continue
            per_method = {m: acc.uses(ctx, m, name, kind) for m in methods}
            if not any(u.updates or u.passed for u in per_method.values()):
                continue
            if self._reset_somewhere(ctx, cls, init, name, kind, per_method):
                continue
            finding = self._attribute_finding(ctx, cls, name, kind, node, per_method, seen)
            if finding is not None:
                yield finding

    def _reset_somewhere(self, ctx, cls, init, name, kind, per_method) -> bool:
        for method, found in per_method.items():
            if found.resets or found.decays:
                return True
            for call, arg in found.passed:
                effect = acc.helper_effect(ctx, call, arg, kind)
                if (effect is None and acc.named_reset(call)) or (effect is not None and effect.resets):
                    return True
        # a reset through a loop variable or getattr (for m in self.metrics: m.reset())
        for call in ctx.calls(cls):
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("reset", "reset_states", "reset_state", "clear"):
                receiver = dotted(call.func.value)
                if receiver is None or not receiver.startswith("self."):
                    return True
        attr = name.split(".", 1)[1]
        pattern = re.compile(_EXTERNAL_RESET.format(attr=re.escape(attr)))
        init_lines = range(init.lineno, (init.end_lineno or init.lineno) + 1)
        lines = ctx.source.splitlines()
        for i, text in enumerate(lines, 1):
            if i not in init_lines and pattern.search(text):
                return True
        if ctx.project is not None:
            for other in ctx.project.files_mentioning(ctx, attr):
                if other is not ctx and pattern.search(other.source):
                    return True
        return False

    def _attribute_finding(self, ctx, cls, name, kind, created, per_method, seen):
        # (c) a period loop inside one method
        for method in per_method:
            for finding in self._local(ctx, method, name, kind, None, seen, owner=f"`{cls.name}.__init__`"):
                return finding
        # (a) a method that loops over a pass, updating and reading the attribute, called once per period
        for method, found in per_method.items():
            verdict = self._pass_method(ctx, method, name, kind, found)
            if verdict is None:
                continue
            if not self._called_per_period(ctx, method):
                continue
            return self._attr_report(ctx, cls, name, verdict, created, f"`{method.name}()` runs once per period")
        # (b) framework hooks: updated per step / batch, read at each epoch's end
        readers = [m for m, u in per_method.items() if (u.reads or (kind == acc.LIST and u.gathered)) and _epoch_hook(m.name)]
        writers = [m for m, u in per_method.items() if u.updates and _step_hook(m.name)]
        for reader in readers:
            for writer in writers:
                stages = {_stage(writer.name), _stage(reader.name)} - {""}
                if len(stages) > 1 or stages & {"test", "predict"}:
                    continue  # another stage's hook, or a test run (once)
                if kind == acc.NUMBER and not per_method[writer].value_updates:
                    continue
                read = (per_method[reader].reads or per_method[reader].gathered)[0]
                return self._attr_report(ctx, cls, name, read, created,
                                         f"`{writer.name}` updates it every step and `{reader.name}` reads it every epoch")
        return None

    def _pass_method(self, ctx, method, name, kind, found):
        if found.resets or found.decays or not found.reads:
            return None
        updates = [u for u in found.updates if acc.inside_loop(ctx, u, method)]
        if kind == acc.NUMBER:
            updates = [u for u in found.value_updates if acc.inside_loop(ctx, u, method)]
        if not updates:
            return None
        first_update = min(u.lineno for u in updates)
        reads = [r for r in found.reads if r.lineno > first_update and not _same_loop(ctx, r, updates, method)]
        return reads[0] if reads else None

    def _called_per_period(self, ctx, method) -> bool:
        for sctx, call in vo.method_call_sites(ctx, method):
            if sctx.enclosing_loops(call):
                return True
        return False

    def _attr_report(self, ctx, cls, name, node, created, why):
        return self.finding(
            ctx,
            node,
            f"`{name}` is created once in `{cls.name}.__init__` (line {created.lineno}) and accumulates over every "
            f"pass ({why}), but the class never resets it: each period reports a running value over all periods "
            "so far, not the current one",
            next_test=f"Print `{name}`'s count (or length) each period: it keeps growing instead of starting again.",
        )


def _same_loop(ctx: FileContext, read: ast.AST, updates: list[ast.AST], method: ast.AST) -> bool:
    """The read sits in the innermost loop of an update (a per-batch progress print), not after the pass."""
    read_loops = set(map(id, ctx.enclosing_loops(read)))
    for u in updates:
        loops = ctx.enclosing_loops(u)
        if loops and id(loops[0]) in read_loops:
            return True
    return False


def _epoch_hook(name: str) -> bool:
    words = set(vo.words(name))
    return "epoch" in words and ("end" in words or "start" in words)


def _step_hook(name: str) -> bool:
    words = set(vo.words(name))
    return bool(words & _TIME_HOOK_WORDS) and "epoch" not in words


def _stage(name: str) -> str:
    words = set(vo.words(name))
    for stage in ("train", "training", "validation", "val", "valid", "test", "predict", "eval", "evaluation"):
        if stage in words:
            return {"training": "train", "val": "validation", "valid": "validation", "evaluation": "validation", "eval": "validation"}.get(stage, stage)
    return ""
