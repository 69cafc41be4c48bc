"""Which script of a project to trace: the one given, or one found in the project's own words.

Looked for, in this order (the first that resolves to a ``.py`` file in the project wins):

1. ``[project.scripts]`` in the root's ``pyproject.toml`` whose module has a ``__main__`` guard;
2. a ``train*.py`` or ``main.py`` at the root with an ``if __name__ == "__main__":`` guard;
3. a ``python xxx.py ...`` command in the root's README whose script is named for training (train, main, fit,
   finetune, run*; not a data preparation step), with the command's arguments;
4. a ``train*.py`` at the root whose top level runs a training loop (``.backward(`` and ``.step(``).

Every choice carries the reason it was made, and a project where nothing fits gets the reason too.
No user code runs here: files are only read.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")
_GUARD = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)
_README_CMD = re.compile(r"(?:^|[\s`$>])python[0-9.]*\s+((?:[\w./-]+/)?[\w.-]+\.py)\b([^\n`]*)")
_SHELL_STOP = {"|", "||", "&&", ";", ">", ">>", "<", "2>", "&", "\\"}
MAX_READ = 200_000
_TRAINING_NAME = re.compile(r"train|main|fit|finetun|^run", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """A script to trace, its arguments, and why it was picked."""

    script: Path
    args: tuple[str, ...] = ()
    reason: str = ""
    others: tuple[str, ...] = field(default=())  # other candidates seen, for the report


def _read(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.read(MAX_READ)
    except OSError:
        return ""


def _inside(root: Path, path: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return False
    return path.is_file()


def _from_pyproject(root: Path) -> list[Entry]:
    import tomllib

    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return []
    try:
        data = tomllib.loads(_read(pyproject))
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    scripts = (data.get("project") or {}).get("scripts") or {}
    found = []
    for name, target in scripts.items() if isinstance(scripts, dict) else []:
        module = str(target).split(":")[0].strip()
        if not module:
            continue
        rel = Path(*module.split("."))
        for candidate in (root / rel.with_suffix(".py"), root / "src" / rel.with_suffix(".py"), root / rel / "__main__.py"):
            if _inside(root, candidate) and _GUARD.search(_read(candidate)):
                found.append(Entry(candidate, reason=f"pyproject.toml [project.scripts] names `{name} = {target}`, "
                                                     f"and {candidate.relative_to(root)} has a __main__ guard"))
                break
    return found


def _root_scripts(root: Path) -> list[Path]:
    names = sorted(p for p in root.glob("train*.py") if p.is_file())
    main = root / "main.py"
    return names + ([main] if main.is_file() else [])


def _from_guards(root: Path) -> list[Entry]:
    return [Entry(p, reason=f"{p.name} at the project root has an `if __name__ == \"__main__\":` guard")
            for p in _root_scripts(root) if _GUARD.search(_read(p))]


def _from_readme(root: Path) -> list[Entry]:
    for name in README_NAMES:
        readme = root / name
        if not readme.is_file():
            continue
        for m in _README_CMD.finditer(_read(readme)):
            script = root / m.group(1)
            if not _TRAINING_NAME.search(script.stem) or not _inside(root, script):
                continue  # data preparation, setup.py, downloads: not a training entry point
            try:
                words = shlex.split(m.group(2), comments=True)
            except ValueError:
                words = m.group(2).split()
            args: list[str] = []
            for word in words:
                if word in _SHELL_STOP or word.startswith(("|", ">", "&", ";")):
                    break
                args.append(word)
            shown = " ".join(["python", m.group(1), *args])
            return [Entry(script, tuple(args), reason=f"{name} says to run `{shown}`")]
    return []


def _from_top_level_loop(root: Path) -> list[Entry]:
    found = []
    for p in _root_scripts(root):
        text = _read(p)
        if _GUARD.search(text) or ".backward(" not in text:
            continue
        if re.search(r"^(?:for|while)\s", text, re.MULTILINE) or re.search(r"^\w[\w.]*\((?!.*\bdef\b)", text, re.MULTILINE):
            found.append(Entry(p, reason=f"{p.name} at the project root runs code at its top level and calls backward() "
                                         f"(no __main__ guard; it trains when run as a script)"))
    return found


def find_entry(root: str | Path) -> tuple[Entry | None, str]:
    """The script to trace and why, or ``(None, why none)``."""
    root = Path(root)
    seen: list[Entry] = []
    for finder in (_from_pyproject, _from_guards, _from_readme, _from_top_level_loop):
        for entry in finder(root):
            if all(e.script.resolve() != entry.script.resolve() for e in seen):
                seen.append(entry)
    if not seen:
        return None, ("no entry point found: no [project.scripts] in pyproject.toml with a __main__ guard, no train*.py "
                      "or main.py at the root with a __main__ guard or a top-level training loop, and no "
                      "`python xxx.py` command in the README; pass the training script with --run SCRIPT")
    first = seen[0]
    others = tuple(str(e.script.relative_to(root)) for e in seen[1:])
    return Entry(first.script, first.args, first.reason, others), first.reason


def given_entry(root: str | Path, script: str | Path, args: tuple[str, ...] | list[str] = ()) -> Entry:
    """The script the caller named (relative to ``root`` unless absolute)."""
    path = Path(script)
    if not path.is_absolute():
        path = Path(root) / path
    return Entry(path, tuple(str(a) for a in args), reason="given with --run" if args is not None else "given")
