"""FileContext's indexes give the same answers as a plain walk of the tree, only faster.

Rules rely on ``all_nodes``, ``nodes_of``, ``calls``, ``calls_named``, ``subtree``
and ``walk_scope`` agreeing with :func:`ast.walk`; the scanner relies on a
finished file leaving no reference cycles behind (a cycle keeps the whole tree
alive until a garbage collection walks it).
"""

from __future__ import annotations

import ast
import gc
import textwrap

from mlsleuth.scan import engine
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.analyze import active_rules, analyze_source

SOURCE = textwrap.dedent(
    """
    import torch
    import torch.nn as nn
    from torch.nn.functional import softmax as sm, cross_entropy
    from numpy import std as spread

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            def helper(v):
                return v.relu()
            return helper(self.fc(x)).softmax(dim=-1)

        def forward(self, x):  # redefined: Python keeps the last one, ctx.method the first
            return self.fc(x)

    def train(model, loader, opt):
        best = None
        for x, y in loader:
            opt.zero_grad()
            probs = sm(model(x), dim=1)
            loss = cross_entropy(probs, y) + [a * b for a, b in zip(x, y)][0]
            loss.backward()
            opt.step()
            z = (x - x.mean(0)) / spread(x, 0)
            if loss != loss or not x.std:
                continue
        return best
    """
)

SINGLETONS = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


def walked(root: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(root) if not isinstance(n, SINGLETONS)]


def context() -> FileContext:
    return FileContext.from_source(SOURCE)


def test_all_nodes_is_ast_walk_without_the_shared_singletons():
    ctx = context()
    assert ctx.all_nodes == walked(ctx.tree)
    assert not any(isinstance(n, SINGLETONS) for n in ctx.all_nodes)


def test_parent_links_match_the_tree():
    ctx = context()
    for parent in ctx.all_nodes:
        for child in ast.iter_child_nodes(parent):
            if not isinstance(child, SINGLETONS):
                assert ctx.parent(child) is parent
    assert ctx.parent(ctx.tree) is None


def test_nodes_of_keeps_walk_order_even_across_classes():
    ctx = context()
    assert ctx.nodes_of(ast.Call) == [n for n in ast.walk(ctx.tree) if type(n) is ast.Call]
    mixed = [n for n in ast.walk(ctx.tree) if type(n) in (ast.Import, ast.ImportFrom)]
    assert ctx.nodes_of(ast.Import, ast.ImportFrom) == mixed
    assert ctx.nodes_of(ast.AsyncFor) == []
    assert [f.name for f in ctx.functions] == ["train", "__init__", "forward", "forward", "helper"]


def test_calls_are_in_source_order_and_callers_get_their_own_list():
    ctx = context()
    expected = sorted((n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
    first = ctx.calls()
    assert first == expected
    first.clear()
    assert ctx.calls() == expected
    train = ctx.module_function("train")
    assert ctx.calls(train) == [c for c in expected if c in set(ast.walk(train))]


def test_calls_named_finds_methods_functions_and_import_aliases():
    ctx = context()
    softmaxes = ctx.calls_named("softmax")
    assert [ast.unparse(c.func) for c in softmaxes] == ["helper(self.fc(x)).softmax", "sm"]  # `sm` is softmax imported under another name
    assert [ast.unparse(c.func) for c in ctx.calls_named("std")] == ["spread"]  # `x.std` is read, never called
    assert ctx.calls_named("relu", "step") == [c for c in ctx.calls() if ast.unparse(c.func) in ("v.relu", "opt.step")]
    assert ctx.calls_named("no_such_function") == []


def test_subtree_and_walk_scope_agree_with_the_standard_walks():
    ctx = context()
    net = ctx.classes[0]
    assert ctx.subtree(net) == walked(net)

    def reference(root):  # the definition walk_scope had before it skipped singletons
        stack = list(reversed(list(ast.iter_child_nodes(root))))
        while stack:
            node = stack.pop()
            yield node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.extend(reversed(list(ast.iter_child_nodes(node))))

    for scope in (ctx.tree, *ctx.functions):
        assert list(ctx.walk_scope(scope)) == [n for n in reference(scope) if not isinstance(n, SINGLETONS)]


def test_method_returns_the_first_definition():
    ctx = context()
    net = ctx.classes[0]
    first_forward = next(n for n in net.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
    assert ctx.method(net, "forward") is first_forward
    assert ctx.method(net, "missing") is None


def test_loop_model_traces_are_built_only_when_asked_for():
    ctx = context()
    model = loop_model(ctx)
    assert [o.name for o in model.optimizers()] == []  # the optimizer is a parameter here
    assert model._traces is None
    assert {e.kind for t in model.traces for e in t.events} >= {"zero_grad", "backward", "step"}


def test_a_finished_file_leaves_no_reference_cycles():
    rules = active_rules(None)
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        result = analyze_source(SOURCE, "train.py", rules=rules)
        assert result.parsed
        assert gc.collect() == 0, "something the rules cached on the context still points back at it"
    finally:
        if was_enabled:
            gc.enable()


def test_analyze_blob_restores_the_collector_state():
    rules = active_rules(None)
    data = SOURCE.encode()
    assert gc.isenabled()
    engine.analyze_blob("train.py", data, "py", False, rules, 10**6)
    assert gc.isenabled()
    gc.disable()
    try:
        engine.analyze_blob("train.py", data, "py", False, rules, 10**6)
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()


def test_called_names_containing_scans_calls_not_methods_unless_asked():
    from mlsleuth.scan.analysis.context import called_names_containing

    text = 'a = train_test_split(x)\nb = text.split(",")\nsplit_rows (z)\nsplitter = 1\nobj.save_ckpt(1)\n2save(3)'
    assert called_names_containing(text, "split") == {"train_test_split", "split_rows"}
    assert called_names_containing(text, "split", methods=True) == {"train_test_split", "split", "split_rows"}
    assert called_names_containing(text, "SAVE", methods=True) == {"save_ckpt"}
