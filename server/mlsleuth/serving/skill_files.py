"""Find the skill's Markdown files: inside the installed wheel, or in a checkout.

A wheel carries ``SKILL.md``, ``refs/``, ``rl/`` and ``pinn/`` as package data
under ``mlsleuth/skill_files/``. In an editable install or a source checkout
they sit at the repository root, two levels above the package. The
environment variable ``MLSLEUTH_SKILL_DIR`` overrides both (a folder holding
``SKILL.md``), for people who keep a customised copy of the skill.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

SKILL_DIR_ENV = "MLSLEUTH_SKILL_DIR"
SECTIONS = ("refs", "rl", "pinn")  # sub-folders of Markdown chapters, one URI family each
# The measurements and quote registry the chapters link to; installed with the
# skill so those links resolve, but not served as chapters.
EVIDENCE = ("docs/evidence",)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class SkillFilesMissing(FileNotFoundError):
    """No copy of the skill could be found; the message says where we looked."""


def _package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def candidates() -> list[Path]:
    """Where the skill may live, in the order they are tried."""
    found: list[Path] = []
    override = os.environ.get(SKILL_DIR_ENV)
    if override:
        found.append(Path(override).expanduser())
    pkg = _package_dir()
    found.append(pkg / "skill_files")
    # server/mlsleuth -> server -> repository root (editable install / checkout);
    # only when the package really sits in a checkout's server/ folder.
    if pkg.parent.name == "server":
        found.append(pkg.parent.parent)
    return found


def skill_root() -> Path:
    """The folder holding ``SKILL.md``; :class:`SkillFilesMissing` if there is none."""
    tried = candidates()
    override = os.environ.get(SKILL_DIR_ENV)
    if override and not (tried[0] / "SKILL.md").is_file():
        raise SkillFilesMissing(f"{SKILL_DIR_ENV}={override} does not contain SKILL.md; point it at the folder holding SKILL.md or unset it")
    for folder in tried:
        if (folder / "SKILL.md").is_file():
            return folder
    raise SkillFilesMissing(
        "the mlsleuth skill files (SKILL.md, refs/, rl/, pinn/) were not found; looked in "
        + ", ".join(str(p) for p in tried)
        + ". Reinstall mlsleuth from a wheel, or set "
        + SKILL_DIR_ENV
    )


@dataclass(frozen=True)
class SkillDoc:
    """One Markdown file of the skill and the URI it is served under."""

    uri: str
    section: str | None  # None for SKILL.md itself
    name: str  # file stem, e.g. 'nan' for refs/nan.md
    path: Path

    def title(self) -> str:
        """The first Markdown heading, else the file name."""
        try:
            with self.path.open(encoding="utf-8") as fh:
                in_front_matter = False
                for n, line in enumerate(fh):
                    if n == 0 and line.strip() == "---":
                        in_front_matter = True
                        continue
                    if in_front_matter:
                        if line.strip() == "---":
                            in_front_matter = False
                        continue
                    if line.startswith("#"):
                        return line.lstrip("#").strip()
                    if n > 80:
                        break
        except (OSError, UnicodeDecodeError):
            pass
        return self.path.name


def list_docs(root: Path | None = None) -> list[SkillDoc]:
    """Every servable Markdown file, found fresh from disk (new chapters appear without code changes)."""
    root = skill_root() if root is None else root
    docs = [SkillDoc("mlsleuth://skill", None, "SKILL", root / "SKILL.md")]
    for section in SECTIONS:
        folder = root / section
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            if path.is_file() and NAME.match(path.stem):
                docs.append(SkillDoc(f"mlsleuth://{section}/{path.stem}", section, path.stem, path))
    return docs


def section_doc(section: str, name: str, root: Path | None = None) -> SkillDoc | None:
    """The chapter ``section/name.md`` if it exists (``name`` may carry the ``.md``)."""
    name = name.removesuffix(".md")
    if section not in SECTIONS or not NAME.match(name):
        return None
    root = skill_root() if root is None else root
    path = root / section / f"{name}.md"
    # NAME forbids separators and '..', so this stays inside the section folder;
    # still refuse a symlink that points elsewhere.
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not resolved.is_relative_to(root.resolve()) or not resolved.is_file():
        return None
    return SkillDoc(f"mlsleuth://{section}/{name}", section, name, path)


def payload_paths(root: Path) -> list[tuple[Path, Path]]:
    """(source, relative destination) for every file an installed skill needs."""
    pairs = [(root / "SKILL.md", Path("SKILL.md"))]
    for section in SECTIONS + EVIDENCE:
        folder = root / section
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    pairs.append((path, Path(section) / path.relative_to(folder)))
    return pairs
