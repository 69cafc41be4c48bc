"""`mlsleuth scan --fix / --diff`: each fix producer's round trip, the verification, and the CLI.

A round trip: the fixed text parses, the finding it targeted is gone on re-scan, nothing else
changed; and where it matters, the fixed code computes the same numbers as the original (run
with torch here, in-process: the snippets are ours).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mlsleuth.config import Config, Selection
from mlsleuth.scan.analysis.edits import Edit, Fix
from mlsleuth.scan.analyze import analyze_source
from mlsleuth.scan.engine import report_filter
from mlsleuth.scan.fixes import apply_edits, fix_source
from mlsleuth.scan.registry import all_rules


def fix(source: str, *, unsafe: bool = False, config: Config | None = None, path: str = "/proj/case.py"):
    text = textwrap.dedent(source).lstrip("\n")
    sel, keep = report_filter(config or Config(), "/proj", Selection())
    return fix_source(text, "case.py", path, sel, keep, unsafe=unsafe)


def rules_found(text: str) -> list[str]:
    return sorted(f.rule for f in analyze_source(text, "case.py").findings)


def round_trip(source: str, rule: str, expected: str, *, unsafe: bool = False) -> None:
    result = fix(source, unsafe=unsafe)
    assert result.fixed == textwrap.dedent(expected).lstrip("\n")
    ast.parse(result.fixed)
    assert rule in rules_found(result.original)
    assert rule not in rules_found(result.fixed)
    assert [r for r, _ in result.applied] == [rule] * len(result.applied) and result.applied


# -- log-of-softmax ------------------------------------------------------------------------------
LOG_SOFTMAX_FORMS = [
    ("torch.log(F.softmax(logits, dim=-1))", "F.log_softmax(logits, dim=-1)"),
    ("torch.log(torch.softmax(logits, 1, dtype=torch.float32))", "torch.log_softmax(logits, 1, dtype=torch.float32)"),
    ("F.softmax(logits, dim=1).log()", "F.log_softmax(logits, dim=1)"),
    ("logits.softmax(-1).log()", "logits.log_softmax(-1)"),
    ("torch.log(nn.Softmax(dim=1)(logits))", "nn.LogSoftmax(dim=1)(logits)"),
    ("torch.log(torch.sigmoid(logits))", "F.logsigmoid(logits)"),
    ("logits.sigmoid().log()", "F.logsigmoid(logits)"),
]


@pytest.mark.parametrize(("before", "after"), LOG_SOFTMAX_FORMS)
def test_log_of_softmax_becomes_the_fused_call_with_the_same_arguments(before, after):
    head = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\ndef nll(logits, y):\n"
    round_trip(head + f"    logp = {before}\n    return -logp[0, y]\n", "log-of-softmax", head + f"    logp = {after}\n    return -logp[0, y]\n")


def test_log_of_softmax_fix_computes_the_same_values():
    torch = pytest.importorskip("torch")
    from torch import nn
    from torch.nn import functional as F

    logits = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]])
    for before, after in LOG_SOFTMAX_FORMS:
        env = {"torch": torch, "nn": nn, "F": F, "logits": logits}
        assert torch.allclose(eval(before, env), eval(after, env), atol=1e-6), (before, after)


def test_log_of_softmax_not_fixed_where_it_is_not_certain():
    source = """
        import torch
        import torch.nn.functional as F


        def nll(logits, y, buf):
            probs = F.softmax(logits, dim=-1)      # assigned first: probs may be used elsewhere
            a = torch.log(probs)
            b = torch.log(F.softmax(logits, dim=-1), out=buf)
            c = torch.log(  # a comment inside the text the fix would delete
                F.softmax(logits, dim=-1))
            return a, b, c, probs
        """
    result = fix(source)
    assert rules_found(result.original).count("log-of-softmax") == 3
    assert result.applied == [] and not result.changed


def test_logsigmoid_names_torch_nn_functional_as_the_file_can():
    result = fix("import torch\n\n\ndef f(x):\n    return torch.log(torch.sigmoid(x))\n")
    assert result.fixed == "import torch\n\n\ndef f(x):\n    return torch.nn.functional.logsigmoid(x)\n"
    bare = fix("from torch import log, sigmoid\n\n\ndef f(x):\n    return log(sigmoid(x))\n")  # no name reaches F
    assert "log-of-softmax" in rules_found(bare.original) and not bare.changed


def test_non_ascii_text_before_the_fix_on_the_same_line():
    round_trip(
        'import torch\nimport torch.nn.functional as F\n\n\ndef f(x):\n    tag = "réseau ☃"; lp = torch.log(F.softmax(x, dim=1))\n    return tag, lp\n',
        "log-of-softmax",
        'import torch\nimport torch.nn.functional as F\n\n\ndef f(x):\n    tag = "réseau ☃"; lp = F.log_softmax(x, dim=1)\n    return tag, lp\n',
    )


# -- nan-equality-check -------------------------------------------------------------------------------
def test_nan_compare_with_the_literals_library():
    round_trip(
        """
        import numpy as np
        import torch


        def flags(t, a):
            bad_t = t == torch.nan
            ok_a = a != np.nan
            return bad_t, ok_a
        """,
        "nan-equality-check",
        """
        import numpy as np
        import torch


        def flags(t, a):
            bad_t = torch.isnan(t)
            ok_a = ~np.isnan(a)
            return bad_t, ok_a
        """,
    )


def test_nan_compare_on_a_python_number_adds_import_math_after_the_docstring():
    round_trip(
        '''
        """Metrics."""
        from __future__ import annotations

        import numpy


        def report(loss):
            if loss.item() != float("nan"):
                print("finite")
            return loss.item() is float("nan")
        ''',
        "nan-equality-check",
        '''
        """Metrics."""
        from __future__ import annotations

        import math
        import numpy


        def report(loss):
            if not math.isnan(loss.item()):
                print("finite")
            return math.isnan(loss.item())
        ''',
    )


def test_nan_compare_of_unknown_type_is_an_unsafe_fix():
    source = "import math\n\n\ndef ok(x):\n    flag = x == math.nan\n    both = (x != math.nan) + 1\n    return flag, both\n"
    safe_only = fix(source)
    assert not safe_only.changed and safe_only.unsafe_left == 2
    bare = fix("import math\n\n\ndef ok(x):\n    return [x != math.nan]\n", unsafe=True)  # no parentheses there: added
    assert bare.fixed == "import math\n\n\ndef ok(x):\n    return [(not math.isnan(x))]\n"
    unsafe = fix(source, unsafe=True)
    assert unsafe.fixed == "import math\n\n\ndef ok(x):\n    flag = math.isnan(x)\n    both = (not math.isnan(x)) + 1\n    return flag, both\n"
    assert "nan-equality-check" not in rules_found(unsafe.fixed)


def test_nan_fix_computes_what_the_guard_meant():
    torch = pytest.importorskip("torch")
    import numpy as np

    t = torch.tensor([1.0, float("nan")])
    assert torch.equal(eval("torch.isnan(t)", {"torch": torch, "t": t}), torch.tensor([False, True]))
    assert np.array_equal(eval("~np.isnan(a)", {"np": np, "a": np.array([1.0, np.nan])}), np.array([True, False]))


def test_chained_nan_compare_is_left_alone():
    result = fix("import math\n\n\ndef f(a, b):\n    return a.item() == math.nan == b\n")
    assert "nan-equality-check" in rules_found(result.original) and not result.changed


def test_a_fix_that_would_cause_another_finding_is_refused():
    # `if loss == nan: continue` -> `if isnan(loss): continue` would silently skip NaN batches,
    # which nan-loss-skip reports: the re-scan refuses it
    source = """
        import torch


        def train(model, loader, opt):
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(model(x), y)
                if loss == torch.nan:
                    continue
                opt.zero_grad()
                loss.backward()
                opt.step()
        """
    result = fix(source)
    assert not result.changed
    assert result.refused and result.refused[0][0] == "nan-equality-check" and "nan-loss-skip" in result.refused[0][1]


# -- loss-accumulated-with-graph ---------------------------------------------------------------------
TRAIN = """
    import torch


    def train(model, loader, opt):
        running = 0.0
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss{cut}
        {tail}
    """


def test_running_loss_used_as_a_number_gets_item():
    tail = 'avg = running / len(loader)\n        print(f"avg {avg:.3f}", round(avg, 2))'
    round_trip(TRAIN.format(cut="", tail=tail), "loss-accumulated-with-graph", TRAIN.format(cut=".item()", tail=tail))


@pytest.mark.parametrize(
    "tail",
    [
        "return running / len(loader)",  # the caller may call .item() on it
        "print(running.item())",  # a tensor method
        "avg = running / len(loader)\n        log(avg)",  # passed on to code we do not see
    ],
)
def test_running_loss_that_may_be_used_as_a_tensor_gets_detach(tail):
    round_trip(TRAIN.format(cut="", tail=tail), "loss-accumulated-with-graph", TRAIN.format(cut=".detach()", tail=tail))


def test_appended_losses_get_detach_and_item_keeps_the_value():
    torch = pytest.importorskip("torch")
    source = TRAIN.format(cut="", tail="return running").replace("running += loss", "losses.append(loss)").replace("running = 0.0", "losses = []")
    source = source.replace("return running", "return torch.stack(losses).mean()")
    result = fix(source)
    assert "losses.append(loss.detach())" in result.fixed and "loss-accumulated-with-graph" not in rules_found(result.fixed)
    loss = (torch.ones(2, requires_grad=True) * 3).sum()
    assert loss.detach().item() == loss.item() == 6.0 and loss.detach().grad_fn is None


# -- adam-coupled-weight-decay (unsafe) -----------------------------------------------------------------
ADAM = "import torch\n\n\ndef build(model):\n    return torch.optim.{cls}(model.parameters(), lr=1e-3, weight_decay=0.05)\n"


def test_adam_to_adamw_only_with_unsafe_fixes():
    safe_only = fix(ADAM.format(cls="Adam"))
    assert not safe_only.changed and safe_only.unsafe_left == 1
    round_trip(ADAM.format(cls="Adam"), "adam-coupled-weight-decay", ADAM.format(cls="AdamW"), unsafe=True)


def test_bare_adam_needs_adamw_imported():
    plain = "from torch.optim import Adam\n\n\ndef build(m):\n    return Adam(m.parameters(), weight_decay=0.1)\n"
    assert not fix(plain, unsafe=True).changed
    both = plain.replace("import Adam", "import Adam, AdamW")
    assert fix(both, unsafe=True).fixed == both.replace("return Adam(", "return AdamW(")


# -- the pipeline ----------------------------------------------------------------------------------------
def test_several_fixes_in_one_file_and_on_one_line():
    head = "import torch\nimport torch.nn.functional as F\n\n\ndef f(a, b):\n"
    result = fix(head + "    return torch.log(F.softmax(a, 1)) + torch.log(F.softmax(b, 1))\n")
    assert result.fixed == head + "    return F.log_softmax(a, 1) + F.log_softmax(b, 1)\n"
    assert len(result.applied) == 2


def test_suppressed_and_per_file_ignored_findings_are_not_fixed(tmp_path):
    head = "import torch\nimport torch.nn.functional as F\n\n\ndef f(a):\n"
    suppressed = head + "    return torch.log(F.softmax(a, 1))  # mlsleuth: ignore[log-of-softmax]\n"
    assert not fix(suppressed).changed
    config = Config(per_file_ignores={"gen/*.py": ["numerical"]}, source=tmp_path / "pyproject.toml")
    sel, keep = report_filter(config, tmp_path, Selection())
    text = head + "    return torch.log(F.softmax(a, 1))\n"
    assert not fix_source(text, "gen/x.py", str(tmp_path / "gen" / "x.py"), sel, keep).changed
    assert fix_source(text, "src/x.py", str(tmp_path / "src" / "x.py"), sel, keep).changed


def test_a_producer_that_breaks_the_file_is_refused(monkeypatch):
    rule = all_rules()["log-of-softmax"]
    monkeypatch.setattr(rule, "fix", lambda self, ctx, finding: Fix("broken", (Edit(0, 0, "def (:\n"),)))
    result = fix("import torch\nimport torch.nn.functional as F\n\n\ndef f(a):\n    return torch.log(F.softmax(a, 1))\n")
    assert not result.changed
    assert result.refused and "unparsable" in result.refused[0][1]


def test_a_producer_that_does_not_remove_the_finding_is_refused(monkeypatch):
    rule = all_rules()["log-of-softmax"]
    monkeypatch.setattr(rule, "fix", lambda self, ctx, finding: Fix("no-op", (Edit(0, 0, "# touched\n"),)))
    result = fix("import torch\nimport torch.nn.functional as F\n\n\ndef f(a):\n    return torch.log(F.softmax(a, 1))\n")
    assert not result.changed and "did not make the finding go away" in result.refused[0][1]


def test_apply_edits_applies_duplicates_once():
    e = Edit(0, 0, "import math\n")
    assert apply_edits("x = 1\n", [e, e, Edit(4, 5, "2")]) == "import math\nx = 2\n"


def test_fixable_rules_are_marked_in_the_catalog():
    from mlsleuth.catalog import load_all

    docs = load_all()
    fixable = {rid for rid, cls in all_rules().items() if cls.fixable()}
    assert fixable == {"log-of-softmax", "nan-equality-check", "loss-accumulated-with-graph", "adam-coupled-weight-decay"}
    assert {rid for rid, d in docs.items() if d.fix} == fixable
    catalog = (Path(__file__).resolve().parents[2] / "refs" / "rules.md").read_text(encoding="utf-8")
    assert catalog.count("fixable with `--fix") == len(fixable) and catalog.count("fixable with `--fix --unsafe-fixes`") == 1


# -- the CLI ----------------------------------------------------------------------------------------------
BUGGY = (
    "import math\n\nimport torch\nimport torch.nn.functional as F\n\n\n"
    "def nll(logits, y):\n    return -torch.log(F.softmax(logits, dim=1))[0, y]\n\n\n"
    "def build(model):\n    return torch.optim.Adam(model.parameters(), weight_decay=0.01)\n"
)


def mlsleuth(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlsleuth", "scan", *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.mlsleuth]\n", encoding="utf-8")
    (tmp_path / "train.py").write_bytes(BUGGY.replace("\n", "\r\n").encode())  # CRLF must survive
    return tmp_path


def test_cli_diff_changes_nothing_and_exits_1(project):
    before = (project / "train.py").read_bytes()
    stamp = os.stat(project / "train.py").st_mtime_ns
    proc = mlsleuth("train.py", "--diff", "--no-cache", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert "--- a/train.py" in proc.stdout and "+    return -F.log_softmax(logits, dim=1)[0, y]\n" in proc.stdout
    assert "AdamW" not in proc.stdout
    assert "would fix 1 finding in 1 file; 1 unsafe fix not applied (add --unsafe-fixes to apply it)" in proc.stderr
    assert (project / "train.py").read_bytes() == before and os.stat(project / "train.py").st_mtime_ns == stamp


def test_cli_fix_round_trip(project):
    proc = mlsleuth("train.py", "--fix", "--no-cache", cwd=project)
    text = (project / "train.py").read_bytes().decode()
    ast.parse(text)
    assert "F.log_softmax(logits, dim=1)" in text and "torch.optim.Adam(" in text and "\r\n" in text and "\n" not in text.replace("\r\n", "")
    assert "fixed 1 finding in 1 file; 1 unsafe fix not applied" in proc.stderr
    assert proc.returncode == 1 and "[adam-coupled-weight-decay]" in proc.stdout and "[log-of-softmax]" not in proc.stdout
    again = mlsleuth("train.py", "--fix", "--unsafe-fixes", "--no-cache", cwd=project)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "torch.optim.AdamW(" in (project / "train.py").read_text(encoding="utf-8")
    assert "fixed 1 finding in 1 file" in again.stderr and "no findings" in again.stdout
    assert mlsleuth("train.py", "--diff", "--unsafe-fixes", "--no-cache", cwd=project).returncode == 0  # nothing left to change


def test_cli_fix_options_are_checked(project):
    assert mlsleuth("train.py", "--unsafe-fixes", cwd=project).returncode == 2
    bad = mlsleuth("train.py", "--diff", "--format", "json", cwd=project)
    assert bad.returncode == 2 and "--diff" in bad.stderr


def test_cli_fix_from_stdin_prints_the_fixed_text(project):
    proc = mlsleuth("-", "--stdin-filename", "train.py", "--fix", cwd=project, stdin=BUGGY)
    assert proc.stdout == BUGGY.replace("torch.log(F.softmax(logits, dim=1))", "F.log_softmax(logits, dim=1)")
    assert "[adam-coupled-weight-decay]" in proc.stderr and proc.returncode == 1
    diff = mlsleuth("-", "--stdin-filename", "train.py", "--diff", cwd=project, stdin=BUGGY)
    assert diff.returncode == 1 and "+    return -F.log_softmax(logits, dim=1)[0, y]" in diff.stdout


def test_cli_fix_leaves_notebooks_alone(project):
    import json

    nb = {"cells": [{"cell_type": "code", "source": BUGGY, "metadata": {}, "outputs": [], "execution_count": None}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (project / "nb.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    before = (project / "nb.ipynb").read_bytes()
    proc = mlsleuth("nb.ipynb", "--fix", "--no-cache", cwd=project)
    assert (project / "nb.ipynb").read_bytes() == before
    assert "not fixed automatically (only UTF-8 .py files are rewritten): nb.ipynb" in proc.stderr
