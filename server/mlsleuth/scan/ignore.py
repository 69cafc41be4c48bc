"""Gitignore-style path patterns, for ``exclude`` and the no-ripgrep walker.

Supported: ``*``, ``?``, ``[abc]``, ``**`` (any number of folders), a
trailing ``/`` (folders only), a leading or inner ``/`` (anchored to the base
folder), ``!`` (re-include; the last matching pattern wins) and ``#`` comments.
A pattern matches a path when it matches the path itself or any folder above it,
so ``build/`` excludes everything under any ``build`` folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath


def _translate(body: str) -> str:
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            close = body.find("]", i + 1)
            if close < 0:
                out.append(re.escape(c))
                i += 1
            else:
                inner = body[i + 1 : close]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner}]")
                i = close + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(body[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Pattern:
    text: str
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def compile_pattern(text: str) -> Pattern | None:
    """One gitignore line as a :class:`Pattern`; None for blanks and comments."""
    line = text.rstrip("\n").rstrip()
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    body = line.rstrip("/")
    body = body.removeprefix("./")
    anchored = "/" in body
    body = body.lstrip("/")
    if not body:
        return None
    regex = _translate(body)
    if not anchored:
        regex = "(?:.*/)?" + regex
    return Pattern(text=text, regex=re.compile(f"^{regex}$"), negated=negated, dir_only=dir_only)


class PathMatcher:
    """A list of gitignore-style patterns relative to one base folder."""

    def __init__(self, patterns: list[str], base: str) -> None:
        self.base = base
        self.patterns = [p for p in (compile_pattern(t) for t in patterns) if p is not None]

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def _decide(self, rel: str, is_dir: bool) -> bool | None:
        verdict: bool | None = None
        for pat in self.patterns:
            if pat.dir_only and not is_dir:
                continue
            if pat.regex.match(rel):
                verdict = not pat.negated
        return verdict

    def matches(self, rel_path: str, is_dir: bool = False, min_depth: int = 0) -> bool:
        """True when ``rel_path`` (posix, relative to the base) or a folder above it is matched.

        Folders at depth ``min_depth`` or above are not tested: a folder the
        user named explicitly is scanned even if a pattern covers it.
        """
        parts = PurePosixPath(rel_path).parts
        if not parts or parts[0] in ("..", "/"):
            return False
        for depth in range(min(min_depth, len(parts) - 1) + 1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            last = depth == len(parts)
            verdict = self._decide(prefix, is_dir if last else True)
            if verdict and not last:
                return True  # a matched folder excludes everything below it
            if last:
                return bool(verdict)
        return False


class PerFileIgnores:
    """``per-file-ignores`` of ``[tool.mlsleuth]``: gitignore-style globs (relative to ``base``, the config
    file's folder) each naming rule ids or categories that are not reported in the files it matches."""

    def __init__(self, table: dict[str, list[str]], base: str) -> None:
        self.base = base
        self.entries = [(PathMatcher([pattern], base), frozenset(ids)) for pattern, ids in table.items()]

    def __bool__(self) -> bool:
        return bool(self.entries)

    def ignored(self, path: str) -> frozenset[str]:
        """The rule ids and categories ignored in the file at ``path`` (absolute, or relative to ``base``)."""
        import os

        full = path if os.path.isabs(path) else os.path.join(self.base, path)
        rel = os.path.relpath(os.path.normpath(full), self.base).replace(os.sep, "/")
        out: set[str] = set()
        for matcher, ids in self.entries:
            if matcher.matches(rel):
                out |= ids
        return frozenset(out)
