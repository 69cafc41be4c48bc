"""``scan/analysis/accumulators.py``: what starts an accumulator, and what code does to one."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import accumulators as acc
from mlsleuth.scan.analysis.context import FileContext

SRC = '''
import numpy as np
import torchmetrics
from collections import deque, defaultdict

a = 0
b = []
c = AverageMeter()
d = np.zeros((3, 3))
e = deque(maxlen=10)
f = defaultdict(list)
g = torchmetrics.Accuracy(task="binary")
h = ModelEma(model, decay=0.99)
i = 1
j = {"loss": 0.0, "acc": 0}

def helper(meter, loader):
    for x in loader:
        meter.update(x)
    return meter.avg

def clearer(meter):
    meter.reset()

def run(loader):
    m = AverageMeter()
    helper(m, loader)
    clearer(m)
'''


def _ctx():
    return FileContext.from_source(SRC)


def test_creation_kinds():
    ctx = _ctx()
    kinds = {}
    for stmt in ctx.tree.body:
        if isinstance(stmt, ast.Assign):
            kinds[stmt.targets[0].id] = acc.creation_kind(ctx, stmt.value)
    assert kinds == {
        "a": acc.NUMBER, "b": acc.LIST, "c": acc.METER, "d": acc.ARRAY, "e": None, "f": acc.LIST,
        "g": acc.METER, "h": None, "i": None, "j": acc.NUMBER,
    }


def test_uses_and_helper_effects():
    ctx = _ctx()
    helper = ctx.module_function("helper")
    found = acc.uses(ctx, helper, "meter", acc.METER)
    assert len(found.updates) == 1 and len(found.reads) == 1 and not found.resets
    run = ctx.module_function("run")
    found = acc.uses(ctx, run, "m", acc.METER)
    effects = [acc.helper_effect(ctx, call, arg, acc.METER) for call, arg in found.passed]
    assert [(e.updates_in_loop, e.reads, e.resets) for e in effects] == [(True, True, False), (False, False, True)]


def test_counts_and_clocks_are_not_measured_values():
    ctx = FileContext.from_source(
        "def f(loader):\n"
        "    n = s = t = k = 0\n"
        "    for x, y in loader:\n"
        "        n += x.size(0)\n"
        "        t += time.time() - t0\n"
        "        s += loss(x, y).item()\n"
        "        if pred(x) == y:\n"
        "            k += 1\n"
    )
    func = ctx.module_function("f")
    valued = {name: bool(acc.uses(ctx, func, name, acc.NUMBER).value_updates) for name in "ntsk"}
    assert valued == {"n": False, "t": False, "s": True, "k": True}
