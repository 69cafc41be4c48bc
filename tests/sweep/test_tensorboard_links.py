"""Symbolic links in a TensorBoard log folder (issue 16, item 11).

A linked run folder used to be dropped without a word (``rglob`` does not follow
links), and a linked event file was read wherever it pointed, even outside the
served root. Now links inside the root are followed, links that leave it are
refused with a note (the target is not named), and nothing is dropped silently.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mlsleuth.mcp_server import build_server
from mlsleuth.sweep.tensorboard import read_tensorboard_dir

DATA = Path(__file__).parent / "data" / "tb"


def runs_of(table) -> set[str]:
    return set(table.columns["run"])


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    logs = root / "logs"
    shutil.copytree(DATA, logs)
    store = root / "store"
    store.mkdir()
    # move one run elsewhere inside the root and link it back under its sweep name
    shutil.move(str(logs / "lr=0.1" / "seed=2"), store / "run-b")
    (logs / "lr=0.1" / "seed=2").symlink_to(store / "run-b", target_is_directory=True)
    return root


def test_a_linked_run_folder_inside_the_root_is_read(tree: Path) -> None:
    table = read_tensorboard_dir(tree / "logs", confine_to=tree)
    assert "lr=0.1/seed=2" in runs_of(table)
    assert len(runs_of(table)) == 9


def test_links_that_leave_the_root_are_refused_with_a_note(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(DATA / "lr=0.01" / "seed=0", outside / "run")
    (tree / "logs" / "lr=1.0").mkdir()
    (tree / "logs" / "lr=1.0" / "seed=0").symlink_to(outside / "run", target_is_directory=True)
    event = next((outside / "run").glob("*tfevents*"))
    (tree / "logs" / "lr=1.0" / "seed=1").mkdir()
    (tree / "logs" / "lr=1.0" / "seed=1" / event.name).symlink_to(event)
    table = read_tensorboard_dir(tree / "logs", confine_to=tree)
    assert not any(r.startswith("lr=1.0") for r in runs_of(table))
    note = next(n for n in table.notes if "outside" in n)
    assert "lr=1.0/seed=0" in note and "lr=1.0/seed=1" in note and str(outside) not in note
    # without confinement (the CLI, where the user names the folder) they are followed
    assert {"lr=1.0/seed=0", "lr=1.0/seed=1"} <= runs_of(read_tensorboard_dir(tree / "logs"))


def test_broken_links_and_loops_are_noted_not_fatal(tree: Path) -> None:
    (tree / "logs" / "lr=0.1" / "seed=9").symlink_to(tree / "missing", target_is_directory=True)
    (tree / "logs" / "lr=0.1" / "again").symlink_to(tree / "logs", target_is_directory=True)
    table = read_tensorboard_dir(tree / "logs", confine_to=tree)
    assert len(runs_of(table)) == 9
    assert any("seed=9" in n for n in table.notes)
    assert any("again" in n for n in table.notes)


def test_the_server_refuses_an_event_file_linked_outside_the_root(tree: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n" * 20)
    (tree / "logs" / "lr=0.1" / "seed=0" / "events.out.tfevents.999.host").symlink_to(secret)

    async def go():
        async with Client(build_server(tree)) as c:
            return await c.call_tool("compare_sweep", {"results": "logs", "param": "lr", "metric": "val/acc", "seed": "seed"})

    result = anyio.run(go)
    text = result.content[0].text
    assert "root:x:0" not in text and str(secret) not in text
    assert not result.is_error, text
    notes = " ".join(result.structured_content["summary"]["stats"].get("notes", []))
    assert "outside" in notes and "lr=0.1/seed=0" in notes
