"""Confine path arguments to the served root.

Every path a client passes is relative to the root given to ``mlsleuth serve
--root``, or absolute and inside it (agents usually send absolute paths: such
a path is first made relative to the root), and is resolved with the SDK's
:func:`mcp.shared.path_security.safe_join`, which refuses ``..`` escapes,
absolute paths, NUL bytes and symlinks that lead outside. Each refusal becomes
a :class:`ToolError` telling the agent what to send instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.path_security import PathEscapeError, is_absolute_path, safe_join

NAME_MAX = 255  # bytes in one file name (Linux, macOS)
PATH_MAX = 4096  # bytes in a whole path (Linux; macOS allows 1024, where the lookup itself then fails cleanly)


def resolve_in_root(root: Path, rel: str, *, must_exist: bool = True, what: str = "path") -> Path:
    """The absolute, resolved form of ``rel`` inside ``root``; ToolError if it escapes or is missing."""
    if not isinstance(rel, str):
        raise ToolError(f"{what} must be a string (a path relative to the served root, or absolute inside it), got {type(rel).__name__}")
    if rel.strip() == "":
        raise ToolError(f"{what} is empty; pass a path relative to the served root ({root}), or '.' for all of it")
    if "\0" in rel:
        raise ToolError(f"{what} {rel!r} contains a NUL byte; pass a plain relative path")
    given = rel
    too_long = f"{what} is too long for the file system ({len(rel):,} characters"
    if any(len(os.fsencode(part)) > NAME_MAX for part in rel.split("/")):
        raise ToolError(f"{too_long}, one name over {NAME_MAX} bytes); pass an existing path relative to the served root ({root})")
    prefix = 0 if is_absolute_path(rel) else len(os.fsencode(str(root)))
    if len(os.fsencode(rel)) + prefix >= PATH_MAX:
        raise ToolError(f"{too_long}, over {PATH_MAX} bytes with the root); pass an existing path relative to the served root ({root})")
    if is_absolute_path(rel):
        rel = _relative_to_root(root, rel, what)
    try:
        target = safe_join(root, rel)
    except PathEscapeError:
        raise ToolError(
            f"{what} {given!r} resolves outside the served root ({root}) (via '..' or a symlink); "
            f"only files under the root can be read. Restart the server with a wider --root if you need them."
        ) from None
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        raise ToolError(f"{what} {given!r} cannot be resolved: {exc}") from None
    try:
        exists = target.exists()
    except OSError as exc:  # ENAMETOOLONG, EACCES on a folder on the way, ...
        raise ToolError(f"{what} {given[:200]!r} cannot be looked up: {exc.strerror or exc}") from None
    if must_exist and not exists:
        raise ToolError(f"{what} {given!r} does not exist under the served root ({root}); check the spelling, or list the directory first")
    return target


def _relative_to_root(root: Path, absolute: str, what: str) -> str:
    """An absolute path inside ``root`` as a path relative to it (still to be checked by safe_join).

    The path is taken as written first (``/root/proj/src/../x.py`` becomes
    ``src/../x.py``, which safe_join then checks), else with the root's own
    symbolic links resolved (``/tmp/proj`` given for a root served as
    ``/private/tmp/proj``); anything else lies outside the root.
    """
    outside = ToolError(
        f"{what} {absolute!r} is an absolute path outside the served root ({root}); only files under the root can be "
        f"read: pass a path inside it, absolute or relative (e.g. 'train.py' or 'src/'), or restart the server with a wider --root"
    )
    path = Path(absolute)
    if not path.is_absolute():  # a Windows drive path on POSIX: never inside a POSIX root
        raise outside
    for candidate in (path, _resolved_parent(path)):
        if candidate is not None and (candidate == root or candidate.is_relative_to(root)):
            return candidate.relative_to(root).as_posix() or "."
    raise outside


def _resolved_parent(path: Path) -> Path | None:
    """``path`` with the links of its parent folders resolved (not its own: safe_join judges that)."""
    try:
        return path.parent.resolve() / path.name if path.name else path.resolve()
    except (OSError, RuntimeError):
        return None


def relative_label(root: Path, path: Path) -> str:
    """``path`` as the client should see it: relative to the root, with forward slashes."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    text = rel.as_posix()
    return text if text else "."


def relativize(report, root: Path) -> None:
    """Rewrite absolute paths under ``root`` in findings and errors to root-relative ones (in place)."""
    prefix = str(root)

    def fix(path: str | None) -> str | None:
        if path and (path == prefix or path.startswith(prefix + "/")):
            return relative_label(root, Path(path))
        return path

    for finding in report.findings:
        finding.location.path = fix(finding.location.path)
    for error in report.errors:
        error.path = fix(error.path)


def inside_root(root: Path, path: str | None) -> bool:
    """True when ``path`` (root-relative or absolute) resolves inside ``root``; None counts as inside."""
    if not path:
        return True
    try:
        target = (root / path).resolve()
    except (OSError, RuntimeError):
        return False
    return target == root or target.is_relative_to(root)


OUTSIDE_ROOT_KIND = "outside-root"  # the scan engine's error kind for a link it did not follow (confine_to)
OUTSIDE_ROOT_MESSAGE = (
    "a symbolic link that leads outside the served root; it was not read (only files under the root are scanned). "
    "Restart the server with a wider --root to scan what it points to"
)


def withhold_outside(report, root: Path) -> int:
    """Keep a scan report to the served root (a second line behind the engine's ``confine_to``).

    The scan engine, confined to the root, reads nothing a symbolic link leads
    to outside it and reports each such link as an ``outside-root`` error entry;
    their messages, which name the link's target, are replaced here so the
    server says nothing about what lies outside. Any other finding or error
    about a file that resolves outside the root is dropped. Returns how many
    entries were withheld; the report is re-finalized when any were.
    """
    for error in report.errors:
        if error.kind == OUTSIDE_ROOT_KIND:
            error.message, error.detail = OUTSIDE_ROOT_MESSAGE, None
    findings = [f for f in report.findings if inside_root(root, f.location.path)]
    errors = [e for e in report.errors if e.kind == OUTSIDE_ROOT_KIND or inside_root(root, e.path)]
    withheld = (len(report.findings) - len(findings)) + (len(report.errors) - len(errors))
    if withheld:
        report.findings, report.errors = findings, errors
        report.finalize(stats={
            "withheld_outside_root": withheld,
            "withheld_note": "results for files reached through symbolic links that leave the served root were withheld",
        })
    return withheld
