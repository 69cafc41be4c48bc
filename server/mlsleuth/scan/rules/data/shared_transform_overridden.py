"""The ``shared-transform-overridden`` rule: the training data's transform changed through an object the
evaluation data shares with it, so training silently loses its augmentation."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import subsets as ds
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.analysis.transforms import augmenting
from mlsleuth.scan.registry import Rule, register_rule

_MODULE_MODES = {"train": "train", "eval": "eval"}


@register_rule
class SharedTransformOverridden(Rule):
    """The training data's transform is switched off through an object the evaluation data shares.

    What it finds: two shapes of one mistake. (1) `val_set.dataset.transform = plain` after
    `train_set, val_set = random_split(full, ...)` (or two `Subset(full, idx)`), where `full` was built
    with the random training augmentation or `train_set.dataset.transform` was set to it: both subsets
    index the same dataset object, so the last assignment sets the transform of both (the training
    subset loses its augmentation, or, when the training assignment comes last, evaluation gets it). (2) One transform object handed to the training
    dataset after a mode switch that returns the object itself (`transform=self.tf.set_mode("train")`,
    `tf.train()`), then switched again for validation/test (`self.tf.set_mode("test")`): every dataset
    holds the same object, which ends in the last mode.
    Why it matters: training runs without its augmentation (or in the evaluation branch of the
    transform) while the code reads as if it had it; the model overfits sooner and the accuracy gap to
    the published recipe has no visible cause.
    How to confirm: after the data is set up, print the training dataset's transform (for a subset,
    `train_set.dataset.transform`) or its mode: it is the evaluation one. Two draws of the same training
    item are identical.
    What to do instead: give evaluation its own dataset object (a second `CIFAR10(..., transform=plain)`
    indexed by the same split indices, or `val_set.dataset = copy.copy(full)` before changing its
    transform), and give each dataset its own transform instance (`copy.deepcopy(tf).set_mode("valid")`).
    """

    id = "shared-transform-overridden"
    category = "data"
    severity = "warning"
    reach = "project"
    triggers = ("transform",)

    def check(self, ctx: FileContext):
        yield from self._subset_transform_assigned(ctx)
        yield from self._mode_switched_after_handoff(ctx)

    # -- (1) val_set.dataset.transform = plain --------------------------------------------------------
    def _subset_transform_assigned(self, ctx: FileContext):
        reported: set[int] = set()
        for held_out in ds.subsets(ctx):
            if held_out.role != "eval":
                continue
            trains = [s for s in ds.siblings(ctx, held_out) if s.role == "train"]
            if not trains:
                continue
            dataset = ds.dataset_call(ctx, held_out)
            tf = ds.transform_argument(dataset) if dataset is not None else None
            built_augmenting = tf is not None and augmenting(ctx, tf)
            mine = _transform_assignments(ctx, held_out)
            theirs = [(s, node, attr) for s in trains for node, attr in _transform_assignments(ctx, s)]
            for node, attr in mine:
                if id(node) in reported:
                    continue
                later_train = [t for t in theirs if t[1].lineno > node.lineno]
                if later_train:
                    # the training subset's assignment comes last and wins for both: evaluation is augmented
                    train, tnode, tattr = later_train[-1]
                    if ast.dump(tnode.value) == ast.dump(node.value) or not augmenting(ctx, tnode.value):
                        continue
                    reported.add(id(node))
                    yield self.finding(
                        ctx,
                        tnode,
                        f"`{train.name}` and `{held_out.name}` are subsets of the same dataset `{dotted(held_out.base)}`: "
                        f"setting `{train.name}.{tattr}` here also replaces the transform set for `{held_out.name}` at line "
                        f"{node.lineno}, so evaluation runs with the training augmentation",
                        next_test=f"Print `{held_out.name}.dataset.transform` after this line: it is the training transform.",
                    )
                    continue
                if augmenting(ctx, node.value):
                    continue
                wanted = built_augmenting or any(augmenting(ctx, t[1].value) for t in theirs)
                if not wanted:
                    continue
                reported.add(id(node))
                lost = ctx.segment(tf, 60) if built_augmenting else ctx.segment(theirs[0][1].value, 60)
                yield self.finding(
                    ctx,
                    node,
                    f"`{held_out.name}` and `{trains[0].name}` are subsets of the same dataset `{dotted(held_out.base)}`: "
                    f"setting `{held_out.name}.{attr}` replaces the transform `{trains[0].name}` reads too, so training "
                    f"runs without the augmentation `{lost}`",
                    next_test=f"Print `{trains[0].name}.dataset.transform` after this line: it is the evaluation transform.",
                )

    # -- (2) transform=self.tf.set_mode("train") ... self.tf.set_mode("test") -------------------------
    def _mode_switched_after_handoff(self, ctx: FileContext):
        calls: dict[tuple[ast.AST, str, str], list[ast.Call]] = {}
        for call in ctx.calls():
            if isinstance(call.func, ast.Attribute) and (receiver := dotted(call.func.value)) is not None:
                scope = ctx.enclosing_function(call) or ctx.tree
                method = "train/eval" if call.func.attr in _MODULE_MODES else call.func.attr
                calls.setdefault((scope, receiver, method), []).append(call)
        by_scope: dict[tuple[ast.AST, str], list[tuple[ast.Call, str, bool]]] = {}
        for (scope, receiver, _method), group in calls.items():
            # cheap first: the same method called twice on one object, once with its result handed on
            if len(group) < 2 or not any(_handed_off(ctx, c) for c in group):
                continue
            for call in group:
                mode = _mode_set(ctx, call)
                if mode is not None:
                    by_scope.setdefault((scope, receiver), []).append((call, mode, _handed_off(ctx, call)))
        for (_scope, receiver), events in by_scope.items():
            events.sort(key=lambda e: (e[0].lineno, e[0].col_offset))
            for i, (call, mode, handed) in enumerate(events):
                if not handed or "train" not in mode.lower():
                    continue
                later = [e for e in events[i + 1 :] if e[1] != mode]
                if not later:
                    continue
                last = later[-1][0]
                yield self.finding(
                    ctx,
                    last,
                    f"`{receiver}` is one object: the training data received it at line {call.lineno} "
                    f"(`{ctx.segment(call, 60)}`), and this call switches that same object to `{later[-1][1]}`, so "
                    "training runs in that mode, without its augmentation",
                    next_test=f"Print the training dataset's transform mode after setup: it is `{later[-1][1]}`.",
                )
                break


def _transform_assignments(ctx: FileContext, subset: ds.SplitSubset) -> list[tuple[ast.Assign, str]]:
    found = [(node, attr) for attr in ("dataset.transform", "dataset.transforms") for node in ds.later_assignments(ctx, subset, attr)]
    return sorted(found, key=lambda pair: pair[0].lineno)


def _mode_set(ctx: FileContext, call: ast.Call) -> str | None:
    """The mode ``call`` switches its receiver to, when it is a mode switch that returns the receiver: a method
    of a project class that stores a parameter on ``self`` and returns ``self``, or ``train()``/``eval()`` of a
    project ``nn.Module`` subclass."""
    name = call_method(call)
    if name is None:
        return None
    found = vo.instance_class(ctx, call.func.value)  # type: ignore[union-attr]
    if found is None:
        return None
    cctx, cls = found
    if name in _MODULE_MODES and not call.args:
        return _MODULE_MODES[name] if _is_module_class(cls) else None
    if name == "train" and call.args and constant(call.args[0]) in (True, False):
        return "train" if constant(call.args[0]) else "eval" if _is_module_class(cls) else None
    method = vo.class_method(cctx, cls, name)
    if method is None or not call.args or not _stores_and_returns_self(method[1]):
        return None
    value = constant(call.args[0])
    return str(value) if isinstance(value, (str, bool, int)) else None


def _is_module_class(cls: ast.ClassDef) -> bool:
    return any((dotted(b) or "").endswith(("Module", "Sequential")) for b in cls.bases)


def _stores_and_returns_self(func: ast.AST) -> bool:
    params = vo.function_params(func)[1:]
    stores = any(
        isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Name)
        and n.value.id in params
        and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" for t in n.targets)
        for n in ast.walk(func)
    )
    returns_self = any(isinstance(v, ast.Name) and v.id == "self" for v in vo.returns(func))
    return stores and returns_self


def _handed_off(ctx: FileContext, call: ast.Call) -> bool:
    """Whether the call's result (the receiver itself) is handed to a dataset as its transform: passed as a
    ``transform=``/``augment...=`` keyword, or as an argument of a call bound to a ``train``/``val``/``test`` name."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.keyword):
        return any(word in (parent.arg or "").lower() for word in ("transform", "aug", "preprocess"))
    if not isinstance(parent, ast.Call) or parent.func is call:
        return False
    bound = ctx.parent(parent)
    targets = bound.targets if isinstance(bound, ast.Assign) else []
    names = {w for t in targets for w in vo.words((dotted(t) or "").rsplit(".", 1)[-1])}
    return bool(names & (ds.TRAIN_WORDS | ds.EVAL_WORDS))
