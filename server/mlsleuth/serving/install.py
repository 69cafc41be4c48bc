"""Copy the skills where Claude Code (and other skill-aware agents) look for them.

A skills folder holds one folder per skill, named as the skill's ``name``:
``--user`` is ``~/.claude/skills/``, ``--project`` is ``.claude/skills/`` under
the current directory, ``--dest DIR`` is DIR. :func:`install_skills` puts the
main skill (SKILL.md with refs/, rl/, pinn/ and the evidence) in
``<skills>/mlsleuth/`` and the companions ``rl/`` and ``pinn/`` as skills of
their own in ``<skills>/mlsleuth-rl/`` and ``<skills>/mlsleuth-pinn/``, so their
descriptions can trigger on their own; their links that lead out of their
folder (``../SKILL.md``, ``../refs/...``) are rewritten to the main skill beside
them. An existing install that differs from ours is only replaced with
``--force``; an identical one is left alone. Files are written to a temporary
sibling folder first and swapped in, so a failure never leaves half an install.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mlsleuth.serving import skill_files

SKILL_NAME = "mlsleuth"  # must equal the `name` in SKILL.md's front matter
COMPANIONS = ("rl", "pinn")  # sub-folders installed as skills of their own, named f"{SKILL_NAME}-{sub}"


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


def user_skills_dir() -> Path:
    return Path.home() / ".claude" / "skills"


def project_skills_dir(project: Path | None = None) -> Path:
    return (project or Path.cwd()) / ".claude" / "skills"


def user_dest() -> Path:
    return user_skills_dir() / SKILL_NAME


def project_dest(project: Path | None = None) -> Path:
    return project_skills_dir(project) / SKILL_NAME


def _same(dest: Path, payload: list[tuple[Path, bytes]]) -> bool:
    """True when ``dest`` holds exactly the payload's files with the same bytes."""
    present = {p.relative_to(dest) for p in dest.rglob("*") if p.is_file()}
    wanted = {rel for rel, _ in payload}
    if present != wanted:
        return False
    return all((dest / rel).read_bytes() == data for rel, data in payload)


def _skill_root(source: Path | None) -> Path:
    try:
        root = source if source is not None else skill_files.skill_root()
    except skill_files.SkillFilesMissing as exc:
        raise InstallError(str(exc)) from None
    if not (root / "SKILL.md").is_file():
        raise InstallError(f"{root} has no SKILL.md to install")
    return root


_OUTWARD_LINK = re.compile(r"\]\(\.\./")


def companion_payload(root: Path, sub: str) -> list[tuple[Path, bytes]]:
    """The files of ``root/sub`` as a skill of its own: links out of the folder point into the main skill beside it."""
    pairs = []
    for path in sorted((root / sub).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes()
            if path.suffix == ".md" and path.parent == root / sub:
                data = _OUTWARD_LINK.sub(f"](../{SKILL_NAME}/", data.decode("utf-8")).encode("utf-8")
            pairs.append((path.relative_to(root / sub), data))
    return pairs


def install_skills(skills_dir: Path, *, force: bool = False, source: Path | None = None) -> list[InstallResult]:
    """Install the main skill and its companions into the skills folder ``skills_dir`` (one folder each)."""
    root = _skill_root(source)
    skills_dir = skills_dir.expanduser().absolute()
    names = {SKILL_NAME, *(f"{SKILL_NAME}-{sub}" for sub in COMPANIONS)}
    if skills_dir.name in names or (skills_dir / "SKILL.md").is_file():
        raise InstallError(
            f"{skills_dir} looks like a skill's own folder, not a skills folder: the skills go into "
            f"{skills_dir}/{SKILL_NAME}/, {skills_dir}/{SKILL_NAME}-rl/ ...; pass its parent ({skills_dir.parent}) instead"
        )
    results = [install_skill(skills_dir / SKILL_NAME, force=force, source=root)]
    for sub in COMPANIONS:
        if (root / sub / "SKILL.md").is_file():
            results.append(_install_payload(skills_dir / f"{SKILL_NAME}-{sub}", companion_payload(root, sub), force=force, root=root / sub))
    return results


def install_skill(dest: Path, *, force: bool = False, source: Path | None = None) -> InstallResult:
    """Install the main skill into ``dest`` (the folder that will hold SKILL.md)."""
    root = _skill_root(source)
    payload = [(rel, src.read_bytes()) for src, rel in skill_files.payload_paths(root)]
    result = _install_payload(dest, payload, force=force, root=root)
    result.warnings = _name_warnings(root, result.dest)
    return result


def _install_payload(dest: Path, payload: list[tuple[Path, bytes]], *, force: bool, root: Path) -> InstallResult:
    """Write ``payload`` ((relative path, bytes) pairs) as the folder ``dest``, atomically."""
    dest = dest.expanduser().absolute()
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise InstallError(f"{dest} exists and is not a plain folder; remove it or choose another --dest")
    if dest.resolve() == root.resolve():
        raise InstallError(f"{dest} is the skill's own source folder; choose another destination")
    existed = dest.exists() and any(dest.iterdir())
    if existed:
        if _same(dest, payload):
            return InstallResult(dest, "unchanged", [rel for rel, _ in payload], root)
        if not force:
            raise InstallError(
                f"{dest} already holds a different skill install (another version, or local edits); "
                f"rerun with --force to replace it (its current content will be deleted)"
            )
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-new-", dir=dest.parent))
    try:
        for rel, data in payload:
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
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
    return InstallResult(dest, "replaced" if existed else "installed", [rel for rel, _ in payload], root)
