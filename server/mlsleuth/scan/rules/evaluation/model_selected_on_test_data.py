"""The ``model-selected-on-test-data`` rule: the kept checkpoint (or the early stop) is chosen by a test-set score."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword
from mlsleuth.scan.analysis.split_roles import TEST, expr_role, name_role
from mlsleuth.scan.registry import Rule, register_rule

_ORDER = (ast.Gt, ast.GtE, ast.Lt, ast.LtE)
_SAVE_WORDS = frozenset({"save", "saver", "checkpoint", "ckpt"})
_KEPT_WORDS = frozenset({"model", "state", "weights", "wts", "params", "ckpt", "checkpoint", "net"})
_MONITOR = re.compile(r"\b(?:ModelCheckpoint|EarlyStopping)\s*\(")
_HF_BEST = re.compile(r"load_best_model_at_end\s*[=:]\s*True|[\"']load_best_model_at_end[\"']\s*:\s*True|EarlyStoppingCallback\s*\(")


def _has_best(expr: ast.AST) -> bool:
    name = dotted(expr) if not isinstance(expr, ast.Subscript) else dotted(expr.value)
    return bool(name) and any("best" in vo.words(part) for part in name.split("."))


def _data_role(ctx: FileContext, name: ast.Name) -> str | None:
    """The split of the data the call that produced ``name`` was handed (``test_acc, _ = validate(val_loader,
    model)`` -> "val"), when its arguments name exactly one split."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for line, stmt, _val in reversed(vo.bindings(ctx, scope).get(name.id, [])):
        if line > name.lineno:
            continue
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        while isinstance(value, (ast.Subscript, ast.Attribute)) and not isinstance(value, ast.Call):
            value = value.value  # evaluate(...)["acc"], evaluate(...).accuracy
        if not isinstance(value, ast.Call):
            return None
        roles = {expr_role(a) for a in (*value.args, *(k.value for k in value.keywords))} - {None}
        return roles.pop() if len(roles) == 1 else None
    return None


def _test_metric(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``expr`` when it is a score of the test split: computed by a call handed test data (``acc =
    evaluate(model, test_loader)``), or, when its data cannot be read, named so (``test_acc``,
    ``results["test_f1"]``). A ``test_acc`` computed on ``val_loader`` is a validation score."""
    if _has_best(expr):
        return None
    if isinstance(expr, ast.Name):
        data = _data_role(ctx, expr)
        if data is not None:
            return expr if data == TEST else None
    return expr if expr_role(expr) == TEST else None


def _selects_model(body: list[ast.stmt]) -> bool:
    """The branch keeps a model: saves one, copies its state, or binds a ``best_model``/``best_state``."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                name = (dotted(node.func) or call_method(node) or "").rsplit(".", 1)[-1]
                parts = set(vo.words(name))
                if parts & _SAVE_WORDS or name in {"deepcopy", "state_dict", "save_pretrained"}:
                    return True
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    parts = set(vo.words(dotted(target) or ""))
                    if "best" in parts and parts & _KEPT_WORDS:
                        return True
    return False


def _flag_consumers(ctx: FileContext, compare: ast.Compare) -> list[ast.stmt] | None:
    """The statements run when the comparison says "better": the ``if`` it guards, or, when it is
    stored (``is_best = acc > best``), the ``if is_best:`` branches and the calls handed the flag."""
    parent = ctx.parent(compare)
    while isinstance(parent, (ast.BoolOp, ast.UnaryOp)):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.If) and (parent.test is compare or compare in ast.walk(parent.test)):
        return parent.body
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        flag = parent.targets[0].id
        scope = ctx.enclosing_function(parent) or ctx.tree
        consumers: list[ast.stmt] = []
        for node in ast.walk(scope):
            if isinstance(node, ast.If) and any(isinstance(n, ast.Name) and n.id == flag for n in ast.walk(node.test)):
                consumers.extend(node.body)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == flag for a in (*node.value.args, *(k.value for k in node.value.keywords))
            ):
                consumers.append(node)
        return consumers
    return None


def _project_matches(ctx: FileContext, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(ctx.source)) or (ctx.project is not None and ctx.project.package_matches(ctx, pattern))


@register_rule
class ModelSelectedOnTestData(Rule):
    """The best checkpoint or the early stop is chosen by a test-set score

    What it finds: a best-so-far comparison of a test score (`if test_acc > best_acc:`, `is_best = acc >
    best` where `acc = evaluate(model, test_loader)`) whose branch saves or copies the model
    (`torch.save`, `save_checkpoint(..., is_best)`, `deepcopy(model.state_dict())`); an early stopper
    fed a test score (`early_stopping(test_loss, model)`); Lightning's
    `trainer.fit(model, train_loader, test_loader)` while a `ModelCheckpoint`/`EarlyStopping` callback
    watches the validation metric; and a Hugging Face `Trainer(eval_dataset=ds["test"])` with
    `load_best_model_at_end=True` or an `EarlyStoppingCallback`.
    Why it matters: the test set stops being unseen data. The epoch, checkpoint or stopping point is the
    one that happens to score best on it, so the test number reported afterwards is the maximum over many
    tries and overstates how the model does on new data, often by points that decide a comparison.
    How to confirm: carve a validation split out of the training data, select on it, and score the test
    set once with the selected checkpoint: the test score drops.
    What to do instead: select the checkpoint, tune and early-stop on a validation split (or
    cross-validation inside the training data) and touch the test set only once, at the end.
    """

    id = "model-selected-on-test-data"
    category = "evaluation"
    severity = "warning"
    triggers = ("best", "Best", "BEST", "eval_dataset", "val_dataloaders", ".fit(", "early", "Early")
    requires = (("test", "Test", "TEST"),)
    reach = "project"

    def check(self, ctx: FileContext):
        yield from self._best_so_far(ctx)
        yield from self._early_stopper(ctx)
        yield from self._lightning_fit(ctx)
        yield from self._hf_trainer(ctx)

    def _best_so_far(self, ctx: FileContext):
        for compare in ctx.nodes_of(ast.Compare):
            if len(compare.ops) != 1 or not isinstance(compare.ops[0], _ORDER):
                continue
            left, right = compare.left, compare.comparators[0]
            for metric, best in ((left, right), (right, left)):
                if not _has_best(best) or name_role(dotted(best) or "") not in (None, TEST):
                    continue
                score = _test_metric(ctx, metric)
                if score is None:
                    continue
                body = _flag_consumers(ctx, compare)
                if body and _selects_model(body):
                    yield self.finding(
                        ctx,
                        compare,
                        f"the model kept as best is chosen by `{ctx.segment(score, 60)}`, a score of the test data: the "
                        "test set is used for model selection, so the test number reported afterwards is optimistic",
                        next_test="Select on a validation split carved from the training data and score the test set once.",
                    )
                break

    def _early_stopper(self, ctx: FileContext):
        """``early_stopping(test_loss, model)``: an early-stopping object fed a test score."""
        for call in ctx.calls():
            name = (dotted(call.func) or "").rsplit(".", 1)[-1]
            parts = set(vo.words(name))
            if not ({"early", "stopping"} <= parts or {"early", "stopper"} <= parts or {"early", "stop"} <= parts):
                continue
            for arg in (*call.args, *(k.value for k in call.keywords)):
                score = _test_metric(ctx, arg) if isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript)) else None
                if score is not None:
                    yield self.finding(
                        ctx,
                        call,
                        f"early stopping is fed `{ctx.segment(score, 60)}`, a score of the test data: the test set "
                        "decides when training stops (and which checkpoint it keeps)",
                        next_test="Feed the early stopper a validation score and score the test set once at the end.",
                    )
                    break

    def _lightning_fit(self, ctx: FileContext):
        if "lightning" not in ctx.source or not _project_matches(ctx, _MONITOR):
            return
        for call in ctx.calls_named("fit"):
            if call_method(call) != "fit":
                continue
            val = keyword(call, "val_dataloaders") or (call.args[2] if len(call.args) > 2 else None)
            if val is not None and expr_role(val) == TEST:
                yield self.finding(
                    ctx,
                    val,
                    f"`{ctx.segment(val, 60)}` is handed to Lightning as the validation data while a checkpoint or "
                    "early-stopping callback ranks epochs on it: the test set chooses the model",
                    next_test="Pass a validation loader to fit() and the test loader to trainer.test() only.",
                )

    @staticmethod
    def _hf_selects(ctx: FileContext, call: ast.Call) -> bool:
        """This Trainer keeps the best checkpoint or stops early: its arguments say so, or (arguments built
        out of sight) the project's text does."""
        callbacks = keyword(call, "callbacks")
        if callbacks is not None and "EarlyStoppingCallback" in ctx.segment(callbacks, 400):
            return True
        args = keyword(call, "args")
        if args is None:
            return False
        bound = vo.value(ctx, args) if isinstance(args, ast.Name) else args
        if isinstance(bound, ast.Call) and (dotted(bound.func) or "").endswith("TrainingArguments"):
            return constant(keyword(bound, "load_best_model_at_end")) is True
        return True

    def _hf_trainer(self, ctx: FileContext):
        if not _project_matches(ctx, _HF_BEST):
            return
        for call in ctx.calls_named("Trainer", "Seq2SeqTrainer", "SFTTrainer"):
            data = keyword(call, "eval_dataset")
            if data is None or constant(data) is None:
                continue
            if expr_role(data) == TEST and self._hf_selects(ctx, call):
                yield self.finding(
                    ctx,
                    data,
                    f"`{ctx.segment(data, 60)}` is the Trainer's evaluation set while the best checkpoint is loaded at "
                    "the end (or training stops early) on its metric: the test set chooses the model",
                    next_test="Evaluate on a validation split during training and call trainer.predict() on the test set once.",
                )
