"""Which files a scan looks at.

Directories are listed with ripgrep (``rg --files``), which honours
``.gitignore``, ``.ignore`` and hidden-file conventions exactly as developers
expect; ``rg -l -F`` then keeps only the files that contain at least one rule
trigger, so files that cannot produce a finding are never read by Python.
When no ``rg`` binary can be found, a pure-Python walker with basic
``.gitignore`` support takes over, and the scan's statistics say so.

Explicit file arguments are always scanned, even when ignored or excluded.

Symbolic links inside scanned folders are followed by default
(``follow_symlinks=False`` skips them). With ``confine_to`` (what a server
serving one folder passes), nothing whose real path lies outside that folder
is listed: a link that leaves it, or a path given that does, becomes one
``outside-root`` error entry and is never read. Link loops become
``symlink-loop`` entries either way.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat as stat_mod
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mlsleuth.report import ErrorEntry
from mlsleuth.scan.ignore import PathMatcher

SUFFIXES = (".py", ".ipynb")
NO_RG_ENV = "MLSLEUTH_NO_RG"  # set to 1 to force the pure-Python walker (tests, odd platforms)
RG_ENV = "MLSLEUTH_RG"  # explicit path to an rg binary
_RG_FILTER = ["--type-add", "mlsleuth:*.py", "--type-add", "mlsleuth:*.ipynb", "-t", "mlsleuth"]
_RG_COMMON = ["--follow", "--no-require-git", "--no-config", "--color", "never"]
_RG_NOFOLLOW = ["--no-require-git", "--no-config", "--color", "never"]


def find_rg() -> str | None:
    """The ripgrep binary: next to this interpreter, on PATH, or where the wheel put it."""
    if os.environ.get(NO_RG_ENV, "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get(RG_ENV)
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    exe = "rg.exe" if os.name == "nt" else "rg"
    beside = Path(sys.executable).parent / exe
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    on_path = shutil.which("rg")
    if on_path:
        return on_path
    try:  # the ripgrep wheel records its binary in the installed files list
        from importlib import metadata

        for f in metadata.files("ripgrep") or []:
            if f.name in (exe, "rg"):
                located = Path(str(f.locate())).resolve()
                if located.is_file() and os.access(located, os.X_OK):
                    return str(located)
    except Exception:  # noqa: BLE001 - the wheel is absent or its metadata odd: no rg
        pass
    return None


@dataclass
class Listing:
    """The outcome of discovery: absolute paths in a stable order, plus what went wrong."""

    files: list[str] = field(default_factory=list)
    explicit: set[str] = field(default_factory=set)
    dirs: list[str] = field(default_factory=list)
    errors: list[ErrorEntry] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    walker: str = "ripgrep"
    rg: str | None = None
    excluded: int = 0


def display_path(path: str, root: str) -> str:
    """``path`` relative to ``root`` when it lies under it, else absolute; always with ``/``."""
    # The common case, a normalised absolute path under a normalised root, without relpath's
    # normalisation of both (a warm scan of a big tree asks for thousands of these).
    if os.path.isabs(path) and os.path.isabs(root) and os.path.normpath(root) == root:
        prefix = root if root.endswith(os.sep) else root + os.sep
        rest = path[len(prefix):] if path.startswith(prefix) else ""
        if rest and not os.path.isabs(rest) and os.path.normpath(rest) == rest and not rest.startswith(".."):
            return rest.replace(os.sep, "/")
    try:
        rel = os.path.relpath(path, root)
    except ValueError:  # another drive on Windows
        rel = path
    if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _rg_error(line: str, root: str) -> ErrorEntry | None:
    """Turn one ``rg:`` stderr line into an error entry."""
    text = line.strip()
    if not text:
        return None
    text = text.removeprefix("rg: ")
    if text.startswith("File system loop found:"):
        # "File system loop found: A points to an ancestor B"
        rest = text.split(":", 1)[1].strip()
        where = rest.split(" points to", 1)[0].strip()
        return ErrorEntry(
            kind="symlink-loop",
            path=display_path(where, root),
            message=f"symbolic link loop ({rest}); this folder was not followed. Remove the link or exclude it.",
        )
    path, sep, message = text.partition(": ")
    if not sep:
        return ErrorEntry(kind="walk-error", message=f"while listing files: {text}")
    kind = "walk-error"
    low = message.lower()
    if "too many levels of symbolic links" in low or "os error 40" in low:
        kind = "symlink-loop"
        message = "symbolic link loop (the link points back to itself); remove or fix the link"
    elif "no such file" in low:
        kind = "broken-link"
        message = "broken symbolic link (its target does not exist); remove or fix the link"
    elif "permission denied" in low:
        kind = "unreadable"
        message = "permission denied; make it readable or exclude it"
    return ErrorEntry(kind=kind, path=display_path(path, root), message=message)


def run_rg(rg: str, args: list[str], root: str) -> tuple[list[str], list[ErrorEntry]]:
    """Run ripgrep; return the absolute paths it printed and its complaints as errors."""
    proc = subprocess.run(
        [rg, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    if proc.returncode not in (0, 1, 2):
        raise OSError(f"ripgrep failed with status {proc.returncode}: {os.fsdecode(proc.stderr)[:500]}")
    paths = [os.fsdecode(p) for p in proc.stdout.split(b"\n") if p]
    errors = [e for e in (_rg_error(line, root) for line in os.fsdecode(proc.stderr).splitlines()) if e]
    return paths, errors


def _walk_python(directory: str, root: str, listing: Listing, follow: bool = True) -> list[str]:
    """The no-ripgrep walker: skips hidden entries, honours each folder's ``.gitignore``."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()

    def visit(folder: str, matchers: list[PathMatcher]) -> None:
        try:
            st = os.stat(folder)
        except OSError as exc:
            listing.errors.append(os_error(folder, exc, root))
            return
        key = (st.st_dev, st.st_ino)
        if key in seen:
            listing.errors.append(
                ErrorEntry(
                    kind="symlink-loop",
                    path=display_path(folder, root),
                    message="symbolic link loop (this folder was already visited); it was not followed again",
                )
            )
            return
        seen.add(key)
        gitignore = os.path.join(folder, ".gitignore")
        if os.path.isfile(gitignore):
            try:
                with open(gitignore, encoding="utf-8", errors="replace") as fh:
                    matchers = [*matchers, PathMatcher(fh.read().splitlines(), folder)]
            except OSError:
                pass
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            listing.errors.append(os_error(folder, exc, root))
            return
        for entry in entries:
            if entry.name.startswith(".") or (not follow and entry.is_symlink()):
                continue
            try:
                is_dir = entry.is_dir()  # follows symlinks
                is_file = not is_dir and entry.is_file()
            except OSError as exc:
                listing.errors.append(os_error(entry.path, exc, root))
                continue
            if not is_dir and not is_file:
                if entry.is_symlink():
                    try:
                        os.stat(entry.path)
                    except OSError as exc:
                        if entry.name.endswith(SUFFIXES):
                            listing.errors.append(os_error(entry.path, exc, root))
                continue
            if is_file and not entry.name.endswith(SUFFIXES):
                continue
            if any(m.matches(display_path(entry.path, m.base), is_dir) for m in matchers):
                continue
            if is_dir:
                visit(entry.path, matchers)
            else:
                found.append(entry.path)

    visit(directory, [])
    return found


def os_error(path: str, exc: OSError, root: str) -> ErrorEntry:
    shown = display_path(path, root)
    if exc.errno == errno.ELOOP:
        return ErrorEntry(kind="symlink-loop", path=shown, message="symbolic link loop (the link points back to itself); remove or fix the link")
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return ErrorEntry(kind="broken-link", path=shown, message="broken symbolic link (its target does not exist); remove or fix the link")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return ErrorEntry(kind="unreadable", path=shown, message="permission denied; make it readable or exclude it")
    return ErrorEntry(kind="unreadable", path=shown, message=f"cannot access: {exc.strerror or exc}")


def discover(
    paths: Iterable[str | os.PathLike[str]],
    root: str,
    excludes: PathMatcher,
    *,
    rg: str | None,
    force_exclude: bool = False,
    follow_symlinks: bool = True,
    confine_to: str | os.PathLike[str] | None = None,
) -> Listing:
    """List the Python and notebook files under ``paths``.

    With ``force_exclude``, explicitly named files are dropped too when an
    exclude pattern covers them (what a pre-commit hook, which names every
    staged file, needs). ``follow_symlinks`` and ``confine_to``: see the
    module docstring.
    """
    listing = _discover(paths, root, excludes, rg=rg, force_exclude=force_exclude, follow=follow_symlinks)
    if confine_to is not None:
        _confine(listing, os.path.realpath(os.fspath(confine_to)), root)
    return listing


def _inside(real: str, fence: str) -> bool:
    return real == fence or real.startswith(fence.rstrip(os.sep) + os.sep)


def _escape_point(path: str, fence: str) -> str:
    """The outermost component of ``path`` whose real location lies outside ``fence`` (the link to report)."""
    parts = os.path.abspath(path).split(os.sep)
    for i in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:i]) or os.sep
        if os.path.islink(prefix) and not _inside(os.path.realpath(prefix), fence):
            return prefix
    return path


def _confine(listing: Listing, fence: str, root: str) -> None:
    """Drop (and report once per link) every listed file whose real path lies outside ``fence``."""
    reported: set[str] = set()
    kept: list[str] = []
    for path in listing.files:
        if _inside(os.path.realpath(path), fence):
            kept.append(path)
            continue
        listing.explicit.discard(path)
        where = _escape_point(path, fence)
        if where in reported:
            continue
        reported.add(where)
        listing.errors.append(
            ErrorEntry(
                kind="outside-root",
                path=display_path(where, root),
                message=f"resolves to {os.path.realpath(where)}, outside {fence}; it was not read (only files under the root are scanned)",
            )
        )
    listing.files = kept
    dirs = []
    for d in listing.dirs:
        if _inside(os.path.realpath(d), fence):
            dirs.append(d)
        elif d not in reported:
            reported.add(d)
            listing.errors.append(
                ErrorEntry(kind="outside-root", path=display_path(d, root), message=f"resolves to {os.path.realpath(d)}, outside {fence}; it was not read")
            )
    listing.dirs = dirs
    listing.errors = [e for e in listing.errors if not (e.kind == "no-python-files" and e.path and os.path.abspath(os.path.join(root, e.path)) in reported)]


def _discover(
    paths: Iterable[str | os.PathLike[str]], root: str, excludes: PathMatcher, *, rg: str | None, force_exclude: bool, follow: bool
) -> Listing:
    listing = Listing(rg=rg, walker="ripgrep" if rg else "python")
    dirs: list[str] = []
    order: list[str] = []
    for raw in paths:
        given = os.fspath(raw)
        path = os.path.abspath(given)
        if not os.path.lexists(path):
            listing.missing.append(given)
            listing.errors.append(
                ErrorEntry(kind="not-found", path=given, message=f"no such file or directory: {given}; check the path")
            )
            continue
        try:
            st = os.stat(path)
        except OSError as exc:
            listing.errors.append(os_error(path, exc, root))
            continue
        if stat_mod.S_ISDIR(st.st_mode):
            dirs.append(path)
        elif stat_mod.S_ISREG(st.st_mode):
            if force_exclude and excludes and excludes.matches(display_path(path, excludes.base)):
                listing.excluded += 1
                continue
            listing.explicit.add(path)
            order.append(path)
        else:
            listing.errors.append(
                ErrorEntry(kind="not-a-file", path=display_path(path, root), message="not a regular file or directory; give a .py or .ipynb file or a folder")
            )
    listing.dirs = dirs
    walked: list[str] = []
    if dirs:
        if rg:
            listed, errors = run_rg(rg, [*(_RG_COMMON if follow else _RG_NOFOLLOW), "--files", *_RG_FILTER, "--", *dirs], root)
            listing.errors.extend(errors)
            walked = sorted(os.path.abspath(p) for p in listed)  # rg lists in parallel: fix the order
        else:
            for d in dirs:
                walked.extend(_walk_python(d, root, listing, follow))
    named = sorted((d.rstrip(os.sep) + os.sep for d in dirs), key=len, reverse=True)
    for path in walked:
        if excludes and _excluded(path, excludes, named):
            listing.excluded += 1
            continue
        order.append(path)
    seen: set[str] = set()
    for path in order:
        if path not in seen:
            seen.add(path)
            listing.files.append(path)
    for d in dirs:
        prefix = d.rstrip(os.sep) + os.sep
        if not any(f.startswith(prefix) for f in listing.files if f not in listing.explicit):
            listing.errors.append(
                ErrorEntry(
                    kind="no-python-files",
                    path=display_path(d, root),
                    message="no .py or .ipynb files here (after .gitignore and exclude rules); check the path or your exclude settings",
                )
            )
    return listing


def _excluded(path: str, excludes: PathMatcher, named_dirs: list[str]) -> bool:
    """Whether an exclude pattern drops ``path``; patterns never drop a folder named on the command line."""
    rel = display_path(path, excludes.base)
    owner = next((d for d in named_dirs if path.startswith(d)), None)
    skip = 0
    if owner is not None:
        owner_rel = display_path(owner.rstrip(os.sep), excludes.base)
        if owner_rel != "." and not owner_rel.startswith(("/", "..")):
            skip = len(owner_rel.split("/"))
    return excludes.matches(rel, min_depth=skip)


def rg_candidates(rg: str, targets: list[str], triggers: Iterable[str], root: str) -> set[str]:
    """The files among ``targets`` (folders or files) that contain any trigger, by ripgrep.

    Files ripgrep could not read are included too, so that opening them
    reports the problem instead of their being skipped without a word.
    """
    words = sorted(set(triggers))
    if not words or not targets:
        return set()
    args = [*_RG_COMMON, "-l", "-F", "-a", *_RG_FILTER]
    for w in words:
        args += ["-e", w]
    found, complaints = run_rg(rg, [*args, "--", *targets], root)
    out = {os.path.abspath(p) for p in found}
    for err in complaints:  # listing already reported loops and broken links; keep unreadable files
        if err.kind == "unreadable" and err.path:
            out.add(os.path.abspath(os.path.join(root, err.path)))
    return out
