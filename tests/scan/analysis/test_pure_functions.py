"""Pure project functions (``mlsleuth/scan/analysis/pure_functions.py``): which bodies only compute their result."""

from __future__ import annotations

import ast
import textwrap

import pytest

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.pure_functions import pure_function

HEADER = """
import logging
import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange

COUNTS = []
"""


def _pure(body: str) -> bool:
    source = HEADER + textwrap.dedent(body)
    ctx = FileContext(source, ast.parse(source), "case.py")
    func = next(n for n in ctx.tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    return pure_function(ctx, func)


@pytest.mark.parametrize("body", [
    "def f(x):\n    return F.gelu(x) * 2\n",
    "def f(x, mask):\n    scores = x.masked_fill(mask == 0, -1e9)\n    return scores.softmax(-1)\n",
    "def f(x):\n    out = torch.zeros_like(x)\n    out[x > 0] = 1.0\n    return out\n",
    "def f(xs):\n    parts = []\n    for t in xs:\n        parts.append(t.mean(0))\n    return torch.stack(parts)\n",
    "def f(x, h):\n    return rearrange(x, 'b (h d) -> b h d', h=h)\n",
    "def g(x):\n    return x.clamp(0, 1)\n\ndef f(x):\n    with torch.no_grad():\n        y = g(x)\n    return y + 1\n",
    "@torch.no_grad()\ndef f(x):\n    total = 0\n    for v in x:\n        total += v.sum()\n    return total\n",
])
def test_bodies_that_only_compute_their_result(body):
    assert _pure(body)


@pytest.mark.parametrize("body", [
    "def f(x):\n    logging.info('x')\n    return x * 2\n",                      # a call made for its effect
    "def f(x):\n    x.mul_(2)\n    return x * 1\n",                                # in place on the argument
    "def f(x):\n    x += 1\n    return x * 1\n",                                    # augmented store into the argument
    "def f(x):\n    x[0] = 0\n    return x.sum()\n",                               # store into the argument
    "def f(x):\n    v = x.view(-1)\n    v[0] = 0\n    return v.sum()\n",         # store into a view of it
    "def f(x):\n    COUNTS.append(1)\n    return x * 2\n",                        # a global grows
    "def f(x):\n    assert x.dim() == 2\n    return x.sum()\n",                    # a check
    "def f(x):\n    return x\n",                                                   # identity
    "def f(x):\n    y = x * 2\n",                                                   # returns nothing
    "def f(x):\n    try:\n        return x.sum()\n    except RuntimeError:\n        return None\n",
    "def f(x):\n    global COUNTS\n    COUNTS = x\n    return x * 2\n",
    "def f(x):\n    yield x * 2\n",
    "def f(x, fn):\n    return fn(x)\n",                                            # unknown callee
    "def f(x):\n    return x.to('cuda')\n",                                        # may move a module in place
    "import functools\n@functools.lru_cache\ndef f(x):\n    return x * 2\n",      # a decorator we do not know
    "def f(x):\n    return torch.save(x, 'x.pt') or x * 2\n",                     # I/O
    "def f(x, m, v):\n    return F.batch_norm(x, m, v, training=True)\n",         # running statistics
    "def f(x):\n    return F.relu(x, True) * 1\n",                                # in place by position
])
def test_bodies_with_effects_or_unknown_parts(body):
    assert not _pure(body)
