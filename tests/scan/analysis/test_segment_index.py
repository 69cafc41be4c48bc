"""FileContext.segment reads source text through a line index built once per file (issue 16, item 7).

ast.get_source_segment re-splits the whole file on every call, so a file with many
findings cost time quadratic in its size (one 1.2M-character line: minutes).
"""

from __future__ import annotations

import ast
import time

import pytest
from mlsleuth.scan.analysis.context import FileContext


def _expected(source: str, node: ast.AST, limit: int = 160) -> str:
    text = ast.get_source_segment(source, node) or ""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


SOURCES = [
    "x = torch.log(torch.softmax(a, dim=1)); y = f(b)\n",
    "s = 'héllo wörld'; t = g('日本語', q)  # ü\nz = h(s, t)\n",
    "a = (1 +\r\n     2)\r\nb = [\r\n  'é',\r\n  3]\r\n",
    "a = 1\rb = f(a,\r  c)\r",
    "x = 1\n\x0cy = f(x, '\x0c')\n\x0c\nz = g(\n  y)\n",  # a form feed is not a line break for the parser
    "def f(x):\n    '''doc\u2028still doc'''\n    return x.log()\n",
    "é = 1; b = é+ü[é]; c = é.real\n",
    "q = '\U0001f600' + f('\U0001f600', e='ä')\n",
]


@pytest.mark.parametrize("source", SOURCES)
def test_segment_matches_the_standard_library_on_every_node(source):
    ctx = FileContext.from_source(source)
    for node in ast.walk(ctx.tree):
        if hasattr(node, "end_col_offset"):
            assert ctx.segment(node) == _expected(source, node), ast.dump(node)
            assert ctx.segment(node, 12) == _expected(source, node, 12)


def test_segment_does_not_resplit_the_file_per_call(monkeypatch):
    stmt = "y = torch.log(torch.softmax(x, dim=1)); "
    source = "import torch\n" + stmt * 4000 + "\n"  # 160,000 characters on one line
    ctx = FileContext.from_source(source)
    calls = [n for n in ctx.all_nodes if isinstance(n, ast.Call)]
    monkeypatch.setattr(ast, "get_source_segment", lambda *a, **k: pytest.fail("segment must use the file's line index"))
    started = time.perf_counter()
    texts = [ctx.segment(c) for c in calls]
    elapsed = time.perf_counter() - started
    assert sorted(set(texts)) == ["torch.log(torch.softmax(x, dim=1))", "torch.softmax(x, dim=1)"]
    assert len(texts) == 8000
    # linear: 8,000 lookups on one 160k-character line take milliseconds (it was about two minutes)
    assert elapsed < 5.0


def test_segment_of_a_huge_node_is_bounded():
    source = "x = [" + ", ".join(str(i) for i in range(200_000)) + "]\n"
    ctx = FileContext.from_source(source)
    value = ctx.tree.body[0].value
    text = ctx.segment(value, 40)
    assert text == _expected(source, value, 40)
    assert len(text) == 40
