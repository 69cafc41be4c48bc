"""The generated rule catalog (refs/rules.md) must match the registry."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from mlsleuth.catalog import load_all
from mlsleuth.docgen import main, render_catalog, repo_root
from mlsleuth.report import CATEGORIES

COMMITTED = Path(__file__).resolve().parents[1] / "refs" / "rules.md"


def test_committed_catalog_is_up_to_date():
    assert COMMITTED.is_file(), "refs/rules.md is missing: run `python -m mlsleuth.docgen`"
    assert COMMITTED.read_text(encoding="utf-8") == render_catalog(load_all()), (
        "refs/rules.md is stale: run `python -m mlsleuth.docgen` and commit the result"
    )


def test_every_rule_has_exactly_one_section_and_anchor():
    docs = load_all()
    text = render_catalog(docs)
    for rid in docs:
        assert text.count(f'<a id="{rid}"></a>') == 1, rid
        assert len(re.findall(rf"^#### `{re.escape(rid)}`: ", text, flags=re.MULTILINE)) == 1, rid
        assert f"](#{rid})" in text, f"{rid} is missing from the contents"


def test_static_rules_come_first_in_category_order():
    docs = load_all()
    text = render_catalog(docs)
    scan_part = text.split("## Static rules", 2)[-1].split("\n## ", 1)[0]
    order = re.findall(r"^### Category `([a-z-]+)`", scan_part, flags=re.MULTILINE)
    assert order == [c for c in CATEGORIES if any(d.tool == "scan" and d.category == c for d in docs.values())]
    tools = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert tools[0] == "Contents" and tools[1].startswith("Static rules")


def test_check_mode_detects_drift(tmp_path, capsys):
    out = tmp_path / "rules.md"
    assert main(["--output", str(out)]) == 0
    assert main(["--check", "--output", str(out)]) == 0
    out.write_text(out.read_text(encoding="utf-8").replace("What it finds", "What it found", 1), encoding="utf-8")
    assert main(["--check", "--output", str(out)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert main(["--check", "--output", str(tmp_path / "missing.md")]) == 1


def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "mlsleuth.docgen", "--check"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert repo_root() == COMMITTED.parents[1]
