"""Copy the skill where Claude Code (and other skill-aware agents) look for it.

``--user`` installs into ``~/.claude/skills/mlsleuth/``, ``--project`` into
``.claude/skills/mlsleuth/`` under the current directory, ``--dest`` anywhere.
An existing install that differs from ours is only replaced with ``--force``;
an identical one is left alone. Files are written to a temporary sibling
folder first and swapped in, so a failure never leaves half an install.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mlsleuth.serving import skill_files

SKILL_NAME = "mlsleuth"  # must equal the `name` in SKILL.md's front matter


class InstallError(Exception):
    """The install cannot proceed; the message says why and what to do."""


@dataclass
class InstallResult:
    dest: Path
    action: str  # 'installed', 'replaced', 'unchanged'
    files: list[Path] = field(default_factory=list)
    source: Path | None = None
    warnings: list[str] = field(default_factory=list)


def front_matter_name(skill_md: Path) -> str | None:
    """The ``name:`` in SKILL.md's front matter, if any."""
    try:
        lines = skill_md.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep and key.strip() == "name":
            return value.strip().strip("'\"") or None
    return None


def _name_warnings(root: Path, dest: Path) -> list[str]:
    name = front_matter_name(root / "SKILL.md")
    if name is not None and name != dest.name:
        return [f"SKILL.md declares name '{name}' but the folder is '{dest.name}'; Claude Code expects them to match, so install into a folder named '{name}'"]
    return []


def user_dest() -> Path:
    return Path.home() / ".claude" / "skills" / SKILL_NAME


def project_dest(project: Path | None = None) -> Path:
    return (project or Path.cwd()) / ".claude" / "skills" / SKILL_NAME


def _same(dest: Path, payload: list[tuple[Path, Path]]) -> bool:
    """True when ``dest`` holds exactly the payload's files with the same bytes."""
    present = {p.relative_to(dest) for p in dest.rglob("*") if p.is_file()}
    wanted = {rel for _, rel in payload}
    if present != wanted:
        return False
    return all(filecmp.cmp(src, dest / rel, shallow=False) for src, rel in payload)


def install_skill(dest: Path, *, force: bool = False, source: Path | None = None) -> InstallResult:
    """Install the skill into ``dest`` (the folder that will hold SKILL.md)."""
    try:
        root = source if source is not None else skill_files.skill_root()
    except skill_files.SkillFilesMissing as exc:
        raise InstallError(str(exc)) from None
    if not (root / "SKILL.md").is_file():
        raise InstallError(f"{root} has no SKILL.md to install")
    payload = skill_files.payload_paths(root)
    dest = dest.expanduser().absolute()
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise InstallError(f"{dest} exists and is not a plain folder; remove it or choose another --dest")
    if dest.resolve() == root.resolve():
        raise InstallError(f"{dest} is the skill's own source folder; choose another destination")
    existed = dest.exists() and any(dest.iterdir())
    if existed:
        if _same(dest, payload):
            return InstallResult(dest, "unchanged", [rel for _, rel in payload], root, _name_warnings(root, dest))
        if not force:
            raise InstallError(
                f"{dest} already holds a different skill install (another version, or local edits); "
                f"rerun with --force to replace it (its current content will be deleted)"
            )
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-new-", dir=dest.parent))
    try:
        for src, rel in payload:
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
        os.chmod(staging, 0o755)
        if existed or dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}-old-", dir=dest.parent))
            old.rmdir()
            dest.rename(old)
            staging.rename(dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(dest)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(f"could not write {dest}: {exc.strerror or exc}") from None
    return InstallResult(dest, "replaced" if existed else "installed", [rel for _, rel in payload], root, _name_warnings(root, dest))
