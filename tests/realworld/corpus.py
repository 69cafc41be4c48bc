"""Read and validate the real-world corpus (format: README.md next to this file).

Shared by ``test_corpus.py`` and ``benchmarks/bench_realworld.py``; standard
library only.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATEGORIES = (
    "data", "loss", "training-loop", "evaluation", "architecture",
    "hyperparameter", "numerical", "reproducibility", "distributed", "environment",
)
KINDS = ("static", "runnable")
SOURCE_TYPES = ("github-issue", "github-pr", "github-commit", "forum", "stackoverflow", "paper", "blog")
SOURCE_SUFFIXES = (".py", ".ipynb")


class CaseError(ValueError):
    """A case folder that does not follow the corpus format."""


@dataclass(frozen=True)
class BugLine:
    file: str
    line: int
    cell: int | None = None  # notebooks: 0-based index among code cells (informative)


@dataclass
class Case:
    id: str
    split: str
    path: Path
    kind: str
    category: str
    family: str
    description: str
    source: dict
    frameworks: list[str]
    bug_lines: list[BugLine]
    lookalikes: list[str]
    runtime: dict | None = None
    meta: dict = field(default_factory=dict)

    @property
    def buggy(self) -> Path:
        return self.path / "buggy"

    @property
    def fixed(self) -> Path:
        return self.path / "fixed"

    def clean_variants(self) -> list[tuple[str, Path]]:
        """(label, folder) of every variant that must draw no warning or error."""
        return [("fixed", self.fixed)] + [(name, self.path / name) for name in self.lookalikes]


def source_files(folder: Path) -> list[str]:
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts
    )


def _require(cond: bool, where: Path, what: str) -> None:
    if not cond:
        raise CaseError(f"{where}: {what}")


def load_case(folder: Path, split: str) -> Case:
    meta_path = folder / "case.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CaseError(f"{meta_path}: unreadable case.json ({exc})") from exc
    _require(isinstance(meta, dict), meta_path, "case.json must hold an object")
    for key in ("id", "kind", "category", "family", "description", "source", "frameworks", "bug_lines", "lookalikes"):
        _require(key in meta, meta_path, f"missing field {key!r}")
    _require(meta["id"] == folder.name, meta_path, f"id {meta['id']!r} differs from the folder name")
    _require(meta["kind"] in KINDS, meta_path, f"kind must be one of {KINDS}")
    _require(meta["category"] in CATEGORIES, meta_path, f"category {meta['category']!r} is not one of {CATEGORIES}")
    src = meta["source"]
    _require(isinstance(src, dict) and str(src.get("url", "")).startswith(("https://", "http://")), meta_path,
             "source.url must be an http(s) URL")
    _require(src.get("type") in SOURCE_TYPES, meta_path, f"source.type must be one of {SOURCE_TYPES}")
    _require(isinstance(meta["description"], str) and meta["description"].strip() != "", meta_path, "empty description")
    buggy, fixed = folder / "buggy", folder / "fixed"
    _require(buggy.is_dir() and fixed.is_dir(), meta_path, "needs buggy/ and fixed/")
    files = source_files(buggy)
    _require(bool(files), buggy, "no .py or .ipynb file")
    _require(files == source_files(fixed), meta_path, "buggy/ and fixed/ hold different file names")
    _require(any((buggy / f).read_bytes() != (fixed / f).read_bytes() for f in files), meta_path,
             "buggy/ and fixed/ are identical")
    bug_lines = []
    _require(isinstance(meta["bug_lines"], list) and meta["bug_lines"], meta_path, "bug_lines must list at least one line")
    for entry in meta["bug_lines"]:
        _require(isinstance(entry, dict) and entry.get("file") in files, meta_path, f"bug line {entry!r}: no such file in buggy/")
        line = entry.get("line")
        _require(isinstance(line, int) and line >= 1, meta_path, f"bug line {entry!r}: line must be a positive integer")
        lines = code_lines(buggy / entry["file"])
        _require(line <= len(lines) and lines[line - 1].strip() != "", meta_path,
                 f"bug line {entry!r}: line {line} is blank or past the end ({len(lines)} lines)")
        bug_lines.append(BugLine(entry["file"], line, entry.get("cell")))
    lookalikes = []
    for entry in meta["lookalikes"]:
        name = entry.get("dir") if isinstance(entry, dict) else None
        _require(isinstance(name, str) and (folder / name).is_dir() and source_files(folder / name), meta_path,
                 f"look-alike {entry!r}: no such folder with source files")
        lookalikes.append(name)
    _require(bool(lookalikes), meta_path, "at least one look-alike is required")
    runtime = meta.get("runtime")
    if meta["kind"] == "runnable":
        _require(isinstance(runtime, dict) and runtime.get("entry") in files, meta_path,
                 "runnable cases need runtime.entry naming a file in buggy/")
        for name in ["fixed", *lookalikes]:
            _require((folder / name / runtime["entry"]).is_file(), meta_path, f"{name}/ lacks the entry {runtime['entry']}")
    return Case(
        id=meta["id"], split=split, path=folder, kind=meta["kind"], category=meta["category"],
        family=str(meta["family"]), description=meta["description"], source=src,
        frameworks=list(meta["frameworks"]), bug_lines=bug_lines, lookalikes=lookalikes,
        runtime=runtime if meta["kind"] == "runnable" else None, meta=meta,
    )


def code_lines(path: Path) -> list[str]:
    """A file's lines; for a notebook, its code cells' lines joined in order, each cell on new lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return text.splitlines()
    return [line for _, lines in notebook_code_cells(path) for line in lines]


@functools.cache
def notebook_code_cells(path: Path) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(1-based position in the notebook's cells list, lines) of every code cell; read once per notebook."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for number, cell in enumerate(data.get("cells", []), start=1):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        text = "".join(src) if isinstance(src, list) else str(src)
        out.append((number, tuple(text.splitlines())))
    return tuple(out)


def notebook_position(path: Path, line: int) -> tuple[int, int]:
    """Map a line of the joined code cells to (cell number, line within the cell), both 1-based."""
    remaining = line
    for number, lines in notebook_code_cells(path):
        if remaining <= len(lines):
            return number, remaining
        remaining -= len(lines)
    raise CaseError(f"{path}: line {line} is past the last code cell")


def load_split(split: str, root: Path = HERE) -> list[Case]:
    return [load_case(p.parent, split) for p in sorted((root / split).glob("*/case.json"))]


def load_corpus(splits: tuple[str, ...] = ("dev", "test"), root: Path = HERE) -> list[Case]:
    return [case for split in splits for case in load_split(split, root)]
