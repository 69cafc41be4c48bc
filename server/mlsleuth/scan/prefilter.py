"""The prefilter: what a file's text must contain before a rule runs on it (see :class:`~mlsleuth.scan.registry.Rule`).

Every term here is a *necessary* condition, never a heuristic. Plain trigger
substrings and the ``requires`` terms: :func:`word` (a whole identifier),
:func:`any_case` (any letter case), :data:`STEP_CALL` (``x.step`` as tokens),
:func:`call_to` (some call of one of these names) and :data:`MODULE_CLASS`
(a class that may derive from an nn.Module). :class:`TextProbe` answers each
term once per file; :func:`gate_terms` and :func:`cheapest_first` build a
rule's gate from its ``triggers`` and ``requires``.

The structural terms (:data:`MODULE_CLASS`, :func:`call_to`) have a
``search(text) -> bool`` method; they read only class headers, import
statements and call sites, so they must be True on every file where the
AST-level fact they stand for holds (the tests check this against the AST on
every fixture). Reading less than the parser does means erring on the side of
True: anything not read plainly counts as a match.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from typing import Any, Union


def find_word(text: str, name: str, pos: int) -> int:
    """Where ``name`` next occurs as a whole identifier at or after ``pos``, or -1."""
    size = len(name)
    at = text.find(name, pos)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + size : at + size + 1] or " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return at
        at = text.find(name, at + 1)
    return -1


class ModuleClassHeader:
    """A ``class`` statement whose bases may resolve to an ``nn.Module`` (a ``requires`` term).

    Necessary for a rule that needs a class whose base's qualified name starts with
    ``torch.nn`` or ends in ``Module``/``PreTrainedModel``, directly or through classes
    of the same file: some class header then has a base whose dotted name ends in
    ``Module``/``PreTrainedModel`` or has a part starting with ``nn``, or starts with a
    name that an import binds to such a target (``from torch.nn import Module as
    Base``). Only class headers and import statements are read, so files whose classes
    all derive from plain bases (``Enum``, ``Exception``, ``types.ModuleType``...) are
    not parsed for such rules. Anything not read plainly (a string or comment in a
    header, type parameters, an unclosed bracket, an import that does not parse alone)
    counts as a possible module class.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "MODULE_CLASS"

    def search(self, text: str) -> bool:
        if "\r" in text:  # old Mac line ends: make every line start visible to the scan below
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        bound: set[str] | None = None
        for header in _class_headers(text):
            bases = _bases(header)
            if bases is None:
                return True
            for base in bases:
                parts = _dotted_parts(base)
                if not parts:
                    continue
                if parts[-1].endswith(("Module", "PreTrainedModel")) or any(p.startswith("nn") for p in parts):
                    return True
                if bound is None:
                    bound = _names_bound_to_modules(text)
                if parts[0] in bound:
                    return True
        return False


MODULE_CLASS = ModuleClassHeader()
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_NN_PREFIX = re.compile(r"(?<![\w])nn")


def _mentions_module(text: str) -> bool:
    return "Module" in text or "PreTrainedModel" in text or bool(_NN_PREFIX.search(text))


def _class_headers(text: str) -> Iterator[str | None]:
    """The text after ``class`` of every class statement, up to its colon; None where unreadable.

    A compound statement always starts its line, so only a ``class`` keyword with
    nothing but indentation before it on its line can start one (one inside a string
    is read too, which only widens the result).
    """
    at = text.find("class")
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        after = text[at + 5 : at + 6]
        if text[line_start:at].strip(" \t\f") == "" and (after.isspace() or after == "\\"):
            yield _header_after(text, at + 5)
        at = text.find("class", at + 5)


def _header_after(text: str, start: int) -> str | None:
    depth = 0
    end = min(len(text), start + 4000)
    for i in range(start, end):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            header = text[start:i]
            return None if "'" in header or '"' in header or "#" in header else header
    return None


def _bases(header: str | None) -> list[str] | None:
    """The base (and keyword) expressions of a class header, split at top-level commas; None if unreadable."""
    if header is None:
        return None
    opening = header.find("(")
    if opening < 0:
        return [] if "[" not in header else None  # `class A:` has no base; type parameters are not read
    if "[" in header[:opening]:
        return None
    depth = 0
    parts: list[str] = []
    start = opening + 1
    for i in range(opening, len(header)):
        ch = header[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                parts.append(header[start:i])
                return parts
        elif ch == "," and depth == 1:
            parts.append(header[start:i])
            start = i + 1
    return None


def _dotted_parts(base: str) -> list[str]:
    """The names of the dotted chain a base expression starts with (``nn.Module`` in ``(nn . Module)``)."""
    squeezed = "".join(base.split()).replace("\\", "").lstrip("(*")
    match = _DOTTED.match(squeezed)
    return match.group(0).split(".") if match else []


def _names_bound_to_modules(text: str) -> set[str]:
    """Names an import binds to a target that mentions ``nn``, ``Module`` or ``PreTrainedModel``.

    Each import statement is parsed on its own and read as :attr:`FileContext.imports`
    reads it; one that does not parse alone gives all its identifiers.
    """
    names: set[str] = set()
    for statement in _import_statements(text):
        if not _mentions_module(statement):
            continue
        try:
            tree = ast.parse(textwrap.dedent(statement))
        except (SyntaxError, ValueError):
            names.update(_IDENTIFIER.findall(statement))
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.asname for a in node.names if a.asname and _mentions_module(a.name))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.update(a.asname or a.name for a in node.names if _mentions_module(f"{node.module}.{a.name}"))
    return names


def _import_statements(text: str) -> Iterator[str]:
    """The text of every import statement (and maybe of a few lines that only look like one).

    An import statement lies on the line of its ``import`` keyword, joined to the
    lines around it by backslashes, and, when the names are in brackets, up to the
    closing one (import lists hold no strings; comments are skipped).
    """
    start = find_word(text, "import", 0)
    while start >= 0:
        line_start = text.rfind("\n", 0, start) + 1
        while line_start > 1 and text[line_start - 2] == "\\":  # the line before ends with a backslash
            line_start = text.rfind("\n", 0, line_start - 1) + 1
        end = _statement_end(text, start + 6)
        yield text[line_start:end]
        start = find_word(text, "import", max(end, start + 6))


def _statement_end(text: str, pos: int) -> int:
    rest = text[pos : pos + 200].lstrip(" \t\\\n")
    if rest.startswith("("):
        i = text.index("(", pos) + 1
        while i < len(text):
            ch = text[i]
            if ch == ")":
                return i + 1
            if ch == "#":
                newline = text.find("\n", i)
                i = len(text) if newline < 0 else newline
            i += 1
        return len(text)
    end = pos
    while True:
        newline = text.find("\n", end)
        if newline < 0:
            return len(text)
        if text[newline - 1] != "\\":
            return newline
        end = newline + 1


class CallTo:
    """A call of something whose own name is one of ``names`` (a ``requires`` term, see :func:`call_to`)."""

    __slots__ = ("_patterns", "names")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names = tuple(sorted(set(names)))
        # a name that ends another one already covers it ("std" finds "nanstd(")
        shortest = [n for n in names if not any(m != n and n.endswith(m) for m in names)]
        self._patterns = [re.compile(re.escape(n) + _CALL_PAREN) for n in sorted(set(shortest))]

    def __repr__(self) -> str:
        return f"call_to{self.names!r}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CallTo) and other.names == self.names

    def __hash__(self) -> int:
        return hash(("call_to", self.names))

    def search(self, text: str) -> bool:
        if any(p.search(text) for p in self._patterns):
            return True
        # ``from numpy import std as sd`` ... ``sd(x)``: the name is on the import instead
        return any(_import_mentions(text, n) for n in self.names)


# What Python allows between a callee and its "(": spaces, newlines in brackets,
# backslash continuations and comments (each alternative starts differently: no backtracking blow-up).
_CALL_PAREN = r"(?:\s|\\|#[^\n\r]*[\n\r])*\("


def call_to(*names: str) -> CallTo:
    """A call whose callee ends in one of ``names``, for ``requires`` groups.

    It matches what :meth:`~mlsleuth.scan.analysis.context.FileContext.calls_named` finds:
    ``x.name(...)``, ``mod.name(...)``, ``name(...)``, and a name an import binds
    to one of them (``from m import name as alias``). A rule that only reports
    around such a call can require it: most files that mention a word never call it.
    """
    return CallTo(tuple(names))


def _import_mentions(text: str, name: str) -> bool:
    """Whether ``name`` is a whole word of some import statement of ``text``."""
    return any(find_word(statement, name, 0) >= 0 for statement in _import_statements(text))


# -- the terms of a gate and their lookup ---------------------------------------------------
Term = Union[str, "re.Pattern[str]", "Word", "NoCase", "CallTo", "ModuleClassHeader"]

# ``x.step`` as tokens: a ``.`` then the identifier ``step``, allowing what Python
# allows between them (spaces, newlines inside brackets, backslash continuations,
# comments). Every optimizer or scheduler ``step()`` event has it.
STEP_CALL = re.compile(r"\.(?:\s|\\|#[^\n\r]*[\n\r])*step\b")  # unambiguous: no backtracking blow-up


class Word:
    """An identifier that must occur whole (``nn`` in ``torch.nn``, not in ``inner``).

    Searched with ``str.find`` and a look at the neighbouring characters:
    some 20 times faster than a ``\\b...\\b`` regular expression on large files.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"word({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Word) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("word", self.name))

    def search(self, text: str) -> bool:
        return find_word(text, self.name, 0) >= 0


def word(name: str) -> Word:
    """``name`` as a whole identifier, for ``requires`` groups."""
    return Word(name)


def case_variants(name: str) -> tuple[str, ...]:
    """Every upper/lower-case spelling of a short word, as plain triggers (``nan``, ``NaN``, ``NAN``...)."""
    spellings = [""]
    for ch in name:
        spellings = [s + c for s in spellings for c in dict.fromkeys((ch.lower(), ch.upper()))]
    return tuple(spellings)


class NoCase:
    """A substring in any letter case (what :func:`case_variants` spells out for ripgrep)."""

    __slots__ = ("lower",)

    def __init__(self, lower: str) -> None:
        self.lower = lower

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoCase) and other.lower == self.lower

    def __hash__(self) -> int:
        return hash(("nocase", self.lower))


def any_case(name: str) -> NoCase:
    """``name`` in any letter case (``loss``, ``Loss``, ``LOSS``...), for ``requires`` groups."""
    return NoCase(name.lower())


# A literal that every match of a gate pattern contains: looked for first, since
# ``str.find`` is many times faster than the regex engine (``.`` is everywhere).
_PATTERN_NEEDS: dict[Any, str] = {STEP_CALL: "step"}

# What a lookup costs, to order each gate cheapest first (the result does not
# depend on the order: terms of a group are or-ed, groups and-ed).
_TERM_COST = {str: 0, Word: 1, NoCase: 2}


def cheapest_first(groups: tuple[tuple[Any, ...], ...]) -> tuple[tuple[Any, ...], ...]:
    ordered = [tuple(sorted(g, key=lambda t: _TERM_COST.get(type(t), 3))) for g in groups]
    return tuple(sorted(ordered, key=lambda g: max(_TERM_COST.get(type(t), 3) for t in g)))


# Terms made only of ASCII word characters can be looked up in the file's distinct
# identifier-like runs (``\w+``) instead of the whole text: every occurrence of such a
# term lies inside one run, and those runs, each once, are a few times shorter than the file.
_WORD_RUN = re.compile(r"\w+")
_PLAIN_TERM = re.compile(r"[A-Za-z0-9_]+")
_PLAIN: dict[str, bool] = {}


_CORE: dict[str, str] = {}


def _plain(term: str) -> bool:
    found = _PLAIN.get(term)
    if found is None:
        found = _PLAIN[term] = _PLAIN_TERM.fullmatch(term) is not None
    return found


def _core(term: str) -> str:
    """The longest run of ASCII word characters in ``term`` (every occurrence of ``term`` contains it), or ''."""
    found = _CORE.get(term)
    if found is None:
        found = _CORE[term] = max(_PLAIN_TERM.findall(term), key=len, default="")
    return found


class TextProbe:
    """One file's text, answering term lookups once each (many rules share terms)."""

    __slots__ = ("_lower", "_runs", "_runs_lower", "_runs_text", "_seen", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None
        self._seen: dict[Any, bool] = {}
        self._runs: set[str] | None = None  # the distinct \w+ runs of the text
        self._runs_text: str | None = None  # those runs joined by newlines
        self._runs_lower: str | None = None

    def _index_runs(self) -> None:
        self._runs = set(_WORD_RUN.findall(self.text))
        self._runs_text = "\n".join(self._runs)

    def has(self, term: Any) -> bool:
        found = self._seen.get(term)
        if found is None:
            if isinstance(term, str):
                if _plain(term):
                    if self._runs_text is None:
                        self._index_runs()
                    found = term in self._runs_text  # type: ignore[operator]
                else:
                    core = _core(term)
                    if len(core) >= 3:  # ``.backward(``: no ``backward`` anywhere, no need to search the text
                        if self._runs_text is None:
                            self._index_runs()
                        found = core in self._runs_text and term in self.text  # type: ignore[operator]
                    else:
                        found = term in self.text
            elif isinstance(term, NoCase):
                if _plain(term.lower):
                    if self._runs_text is None:
                        self._index_runs()
                    found = term.lower in self._runs_text  # type: ignore[operator]
                    if not found:
                        if self._runs_lower is None:
                            self._runs_lower = self._runs_text.lower()  # type: ignore[union-attr]
                        found = term.lower in self._runs_lower
                else:
                    # the usual spelling first: lowering a whole file costs more than a search
                    found = term.lower in self.text
                    if not found:
                        if self._lower is None:
                            self._lower = self.text.lower()
                        found = term.lower in self._lower
            elif isinstance(term, Word) and _plain(term.name):
                if self._runs is None:
                    self._index_runs()
                found = term.name in self._runs  # type: ignore[operator]
            else:
                need = _PATTERN_NEEDS.get(term)
                found = (need is None or need in self.text) and bool(term.search(self.text))
            self._seen[term] = found
        return found


def gate_terms(triggers: tuple[str, ...]) -> tuple[Any, ...]:
    """Triggers with every case spelling of one word folded into a single :class:`NoCase` term."""
    folded: list[Any] = []
    seen: set[str] = set()
    for t in triggers:
        low = t.lower()
        if low in seen:
            continue
        if len(low) <= 6 and set(case_variants(low)) <= set(triggers):
            folded.append(NoCase(low))
            seen.add(low)
        else:
            folded.append(t)
    return tuple(folded)
