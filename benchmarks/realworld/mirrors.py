"""Extract the Python sources of a pinned commit from a git mirror (no work tree needed).

The session tool ``fetch`` leaves a repository as a git directory without a
work tree, and its largest blobs may be missing, so ``git archive`` can fail.
This reads the tree with ``git ls-tree`` and writes only ``.py``/``.ipynb``
blobs through one ``git cat-file --batch`` process.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

SUFFIXES = (".py", ".ipynb")


class MirrorError(RuntimeError):
    """The mirror is missing, or lacks the pinned commit."""


def mirror_dir(mirrors: Path, repo: str) -> Path:
    return mirrors / repo.replace("/", "+") / "repo"


def extract_sources(git_dir: Path, commit: str, dest: Path, paths: list[str]) -> int:
    """Write the .py/.ipynb files under ``paths`` at ``commit`` into ``dest``; return how many."""
    if not git_dir.is_dir():
        raise MirrorError(f"no mirror at {git_dir}")
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
        capture_output=True, check=False,
    )
    if listing.returncode != 0:
        raise MirrorError(f"{git_dir}: cannot list {commit}: {listing.stderr.decode(errors='replace').strip()}")
    wanted: list[tuple[str, str]] = []
    prefixes = [p.strip("/") for p in paths]
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.decode("utf-8", errors="surrogateescape").partition("\t")
        mode, kind, oid = meta.split()
        if kind != "blob" or mode == "120000" or not name.endswith(SUFFIXES):
            continue
        if any(p in ("", ".") or name == p or name.startswith(p + "/") for p in prefixes):
            wanted.append((oid, name))
    batch = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    assert batch.stdin is not None and batch.stdout is not None
    written = 0
    try:
        for oid, name in wanted:
            batch.stdin.write(oid.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if len(header) < 3 or header[1] == b"missing":
                continue  # a blob the mirror did not keep: left out, like a file too large to scan
            size = int(header[2])
            data = batch.stdout.read(size)
            batch.stdout.read(1)  # the newline after each object
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written += 1
    finally:
        batch.stdin.close()
        batch.wait(timeout=60)
    return written
