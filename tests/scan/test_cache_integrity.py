"""The scan cache is never trusted blindly (issue 16, item 9).

A repository can ship `.mlsleuth_cache/scan-<fingerprint>.json`: results it holds must not
make a buggy file scan clean, and a malformed entry must be dropped and rebuilt, with no
traceback, on the very next run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mlsleuth.config import Config, Selection
from mlsleuth.scan.engine import scan_paths

NAN_ONLY = Selection(select=("nan-equality-check",))
BUGGY = "import math\n\n\ndef check(loss):\n    if loss == math.nan:\n        raise RuntimeError('nan')\n"
OLD = 1_600_000_000_000_000_000  # an mtime outside the racy window, so the stat table is used


@pytest.fixture(autouse=True)
def user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def scan(root: Path):
    return scan_paths([root / "src"], root=root, selection=NAN_ONLY, config=Config(), use_cache=True, jobs=1)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    target = root / "src" / "train.py"
    target.write_text(BUGGY)
    os.utime(target, ns=(OLD, OLD))
    return root


def edit_cache(cache_file: Path, change) -> None:
    """Change the cache's tables the way someone without this user's key can: in place."""
    raw = cache_file.read_bytes()
    head, sep, body = raw.partition(b"\n")
    framed = bool(sep) and body.strip().startswith(b"{")
    data = json.loads(body if framed else raw)
    change(data)
    text = json.dumps(data, separators=(",", ":")).encode()
    cache_file.write_bytes(head + b"\n" + text if framed else text)


def test_a_shipped_cache_with_empty_results_does_not_hide_a_bug(tmp_path):
    root = project(tmp_path)
    first = scan(root)
    assert len(first.findings) == 1
    cache_file = Path(first.summary.stats["cache"])

    def empty(data):
        for payload in data["results"].values():
            payload["findings"] = []

    edit_cache(cache_file, empty)
    again = scan(root)
    assert len(again.findings) == 1
    assert again.summary.stats["cache_hits"] == 0


def test_a_cache_made_by_another_user_is_not_trusted(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "someone-else"))
    scan(root)  # their machine, their cache, shipped in the repository
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "me"))
    mine = scan(root)
    assert mine.summary.stats["cache_hits"] == 0 and len(mine.findings) == 1
    assert any("not written by" in n for n in mine.summary.stats.get("notes", []))
    again = scan(root)  # rebuilt and signed by me: now it is used
    assert again.summary.stats["cache_hits"] == 1 and len(again.findings) == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: [p.update(findings=[{"rule": 5}]) for p in d["results"].values()],
        lambda d: [p.update(findings=[{"rule": "nan-equality-check", "location": "x"}]) for p in d["results"].values()],
        lambda d: [p.update(errors=[{"kind": None}]) for p in d["results"].values()],
        lambda d: [p.update(deps="not-a-mapping") for p in d["results"].values()],
        lambda d: [p.update(deps={"/etc/passwd": 7}) for p in d["results"].values()],
        lambda d: [p.update(suppressed="many") for p in d["results"].values()],
        lambda d: [p.update(notes=[1, 2]) for p in d["results"].values()],
        lambda d: d.update(stat={k: [1, 2, 3, 4] for k in d["stat"]}),
        lambda d: d.update(stat={k: ["a", None, [], {}] for k in d["stat"]}),
        lambda d: d.update(results=[]),
        lambda d: d.update(stat=None),
    ],
    ids=["rule-type", "location-type", "error-kind", "deps-type", "deps-value", "suppressed", "notes", "stat-values", "stat-types", "results-list", "stat-none"],
)
def test_malformed_entries_are_dropped_and_rebuilt_without_a_traceback(tmp_path, damage):
    root = project(tmp_path)
    cache_file = Path(scan(root).summary.stats["cache"])
    edit_cache(cache_file, damage)
    again = scan(root)  # must not raise
    assert [f.rule for f in again.findings] == ["nan-equality-check"]
    third = scan(root)
    assert [f.rule for f in third.findings] == ["nan-equality-check"]
    assert third.summary.stats["cache_hits"] == 1  # rebuilt after the bad run, trusted again


@pytest.mark.parametrize("content", [b"[]", b"null", b"\xff\xfe garbage", b'{"format": 1}', b"x" * 100 + b"\n{}", b""])
def test_a_cache_file_that_is_not_a_cache_is_rebuilt(tmp_path, content):
    root = project(tmp_path)
    cache_file = Path(scan(root).summary.stats["cache"])
    cache_file.write_bytes(content)
    again = scan(root)
    assert [f.rule for f in again.findings] == ["nan-equality-check"]
    assert scan(root).summary.stats["cache_hits"] == 1
