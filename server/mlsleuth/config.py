"""``[tool.mlsleuth]`` configuration and rule selection.

Keys (all optional)::

    [tool.mlsleuth]
    select = ["loss", "missing-zero-grad"]   # rule ids or categories; default: all
    extend-select = ["numerical"]             # added to select (with select unset every rule runs anyway)
    ignore = ["adam-coupled-weight-decay"]    # rule ids or categories
    exclude = ["third_party/", "legacy/*.py"] # gitignore-style globs, relative to the config file
    extend-exclude = []
    min-severity = "info"                     # error | warning | info
    cache-dir = ".mlsleuth_cache"             # where scan results are cached (inside the project)
    max-file-size = 10                        # MiB; larger files are skipped with an error entry

    [tool.mlsleuth.per-file-ignores]          # gitignore-style globs relative to the config file's folder
    "tests/**" = ["nan-equality-check"]       # -> rule ids or categories not reported in matching files
    "__init__.py" = ["architecture"]          # a pattern without a slash matches the name at any depth

Command-line ``--select``/``--ignore`` replace the file's lists (``--select`` also drops the file's
``extend-select``, as in ruff); ``per-file-ignores`` always applies.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlsleuth.report import CATEGORIES, SEVERITIES, SEVERITY_RANK

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

KNOWN_KEYS = {"select", "extend-select", "ignore", "exclude", "extend-exclude", "min-severity", "cache-dir", "max-file-size", "per-file-ignores"}


class ConfigError(ValueError):
    """The configuration is invalid; the message says which key and why."""


@dataclass
class Config:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    min_severity: str = "info"
    cache_dir: str | None = None
    max_file_size_mb: float | None = None  # scan skips (and reports) larger files; None: the scanner's default
    source: Path | None = None  # the pyproject.toml it came from
    extend_select: list[str] = field(default_factory=list)  # already merged into ``select`` when that is set
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)  # glob -> rule ids or categories

    @property
    def root(self) -> Path | None:
        return self.source.parent if self.source else None


MAX_FILE_SIZE_MB = 2.0**20  # 1 TiB: any larger limit is no limit, and its byte count would overflow


def check_file_size_mb(value: object, what: str = "max-file-size") -> float:
    """``value`` as a size limit in MiB; ConfigError unless it is a finite number in (0, 1 TiB]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not 0 < value <= MAX_FILE_SIZE_MB:
        raise ConfigError(f"{what} must be a positive number of MiB (finite, at most {MAX_FILE_SIZE_MB:.0f}), not {value!r}")
    return float(value)


def find_pyproject(start: Path, boundary: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.mlsleuth]`` table, searching upward.

    With a ``boundary`` (a server's root) the search stops there and a candidate
    whose real location is outside it (a symbolic link) is not read.
    """
    limit = None
    if boundary is not None:
        try:
            limit = boundary.resolve()
        except (OSError, RuntimeError):
            return None
    try:
        here = start.resolve()
        if here.is_file():
            here = here.parent
    except (OSError, RuntimeError):  # a name too long, a link loop: look from the nearest folder that resolves
        here = Path(os.path.abspath(start)).parent
    for folder in (here, *here.parents):
        if limit is not None and not folder.is_relative_to(limit):
            break
        candidate = folder / "pyproject.toml"
        try:
            found = candidate.is_file()
            if found and limit is not None and not candidate.resolve().is_relative_to(limit):
                continue  # a link to someone else's settings
        except (OSError, RuntimeError):  # a folder we may not look into, a name too long: no settings from there
            continue
        if found:
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                if "tool.mlsleuth" in text:  # ours, but broken: say so rather than ignore the settings
                    raise ConfigError(f"{candidate} is not valid TOML: {exc}") from None
                continue
            except RecursionError:
                raise ConfigError(f"{candidate} is nested too deeply to read (thousands of brackets); it cannot be a real setting") from None
            tool = data.get("tool", {})
            if isinstance(tool, dict) and "mlsleuth" in tool:
                return candidate
    return None


def _str_list(table: dict[str, Any], key: str, where: Path) -> list[str]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: [tool.mlsleuth] {key} must be a list of strings")
    return value


def load_config(start: Path, explicit: Path | None = None, *, boundary: Path | None = None) -> Config:
    """Load configuration for a scan rooted at ``start`` (or from ``explicit``); with a
    ``boundary``, only a ``pyproject.toml`` inside it counts (see :func:`find_pyproject`)."""
    path = explicit if explicit is not None else find_pyproject(start, boundary)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path} is nested too deeply to read (thousands of brackets); it cannot be a real setting") from None
    tool = data.get("tool", {})
    table = tool.get("mlsleuth", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.mlsleuth] must be a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.mlsleuth] key(s): {', '.join(unknown)}; known: {', '.join(sorted(KNOWN_KEYS))}")
    min_sev = table.get("min-severity", "info")
    if min_sev not in SEVERITIES:
        raise ConfigError(f"{path}: min-severity must be one of {', '.join(SEVERITIES)}, not {min_sev!r}")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and (not isinstance(cache_dir, str) or "\0" in cache_dir or not cache_dir.strip()):
        raise ConfigError(f"{path}: cache-dir must be a string naming a folder (not empty, no NUL bytes)")
    max_size = table.get("max-file-size")
    if max_size is not None:
        check_file_size_mb(max_size, f"{path}: max-file-size")
    select = _str_list(table, "select", path)
    extend_select = _str_list(table, "extend-select", path)
    return Config(
        # an empty select means every rule, which extend-select cannot widen
        select=[*select, *(s for s in extend_select if s not in select)] if select else [],
        extend_select=extend_select,
        per_file_ignores=_per_file_ignores(table, path),
        ignore=_str_list(table, "ignore", path),
        exclude=_str_list(table, "exclude", path) + _str_list(table, "extend-exclude", path),
        min_severity=min_sev,
        cache_dir=cache_dir,
        max_file_size_mb=float(max_size) if max_size is not None else None,
        source=path,
    )


def _per_file_ignores(table: dict[str, Any], where: Path) -> dict[str, list[str]]:
    value = table.get("per-file-ignores", {})
    if not isinstance(value, dict):
        raise ConfigError(f'{where}: [tool.mlsleuth] per-file-ignores must be a table of glob = [rule ids], e.g. "tests/**" = ["nan-equality-check"]')
    out: dict[str, list[str]] = {}
    for pattern, ids in value.items():
        if not pattern.strip():
            raise ConfigError(f"{where}: [tool.mlsleuth] per-file-ignores has an empty pattern")
        if isinstance(ids, str):
            ids = [ids]
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ConfigError(f"{where}: [tool.mlsleuth] per-file-ignores[{pattern!r}] must be a list of rule ids or categories")
        out[pattern] = ids
    return out


@dataclass(frozen=True)
class Selection:
    """Which rules are active, by rule id or category, and the severity floor."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    min_severity: str = "info"

    def validate(self, known_rules: set[str]) -> None:
        for name in (*self.select, *self.ignore):
            if name not in known_rules and name not in CATEGORIES and name != "all":
                raise ConfigError(
                    f"unknown rule or category {name!r} in select/ignore; "
                    f"see `mlsleuth rules` for ids, categories are: {', '.join(CATEGORIES)}"
                )

    def allows(self, rule: str, category: str, severity: str = "info") -> bool:
        if SEVERITY_RANK[severity] > SEVERITY_RANK[self.min_severity]:
            return False
        if self.select and "all" not in self.select and rule not in self.select and category not in self.select:
            return False
        return rule not in self.ignore and category not in self.ignore
