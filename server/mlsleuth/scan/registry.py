"""The static-rule registry.

A rule is a class with a four-section docstring (see :mod:`mlsleuth.catalog`),
class attributes ``id``, ``category``, ``severity`` and ``triggers``, and a
``check(ctx)`` method yielding findings. Decorate it with :func:`register_rule`::

    @register_rule
    class LogOfSoftmax(Rule):
        '''`log(softmax(x))` instead of `log_softmax(x)`.

        What it finds: ...
        Why it matters: ...
        How to confirm: ...
        What to do instead: ...
        '''

        id = "log-of-softmax"
        category = "numerical"
        severity = "warning"
        triggers = ("softmax",)

        def check(self, ctx):
            for call in ctx.calls():
                ...
                yield self.finding(ctx, call, "...")

``triggers`` are plain substrings; a file that contains none of any active
rule's triggers is never parsed (the scanner asks ripgrep for candidates
first), so every rule must list the words it cannot fire without.

``requires`` narrows further: a tuple of groups, each a tuple of substrings
or patterns (:func:`word`, :func:`any_case`, :data:`STEP_CALL`, :func:`call_to`
for "some call of one of these names", :data:`MODULE_CLASS` for "a class that
may derive from an nn.Module"), and the file must contain something from
*every* group as well as one trigger. Groups are checked cheapest first. A
rule runs on a file only when :meth:`Rule.applies_to` says so, and the file
is parsed only when some active rule applies. Both are necessary conditions, never
heuristics: every entry must be text that any file the rule can fire on
necessarily contains (an identifier a qualified name resolves through, a
word the rule's own text test needs). ``tests/test_scan_triggers.py`` runs
every rule ungated on every test fixture and fails when a rule fires on a
source its gate would have skipped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Union

from mlsleuth import catalog
from mlsleuth.report import Finding, Location
from mlsleuth.scan.gates import (  # noqa: F401 - rules import gate terms from here
    MODULE_CLASS,
    CallTo,
    ModuleClassHeader,
    call_to,
    find_word,
)

if TYPE_CHECKING:
    from mlsleuth.scan.context import FileContext

TOOL = "scan"

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


def _cheapest_first(groups: tuple[tuple[Any, ...], ...]) -> tuple[tuple[Any, ...], ...]:
    ordered = [tuple(sorted(g, key=lambda t: _TERM_COST.get(type(t), 3))) for g in groups]
    return tuple(sorted(ordered, key=lambda g: max(_TERM_COST.get(type(t), 3) for t in g)))


class TextProbe:
    """One file's text, answering term lookups once each (many rules share terms)."""

    __slots__ = ("_lower", "_seen", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None
        self._seen: dict[Any, bool] = {}

    def has(self, term: Any) -> bool:
        found = self._seen.get(term)
        if found is None:
            if isinstance(term, str):
                found = term in self.text
            elif isinstance(term, NoCase):
                # the usual spelling first: lowering a whole file costs more than a search
                found = term.lower in self.text
                if not found:
                    if self._lower is None:
                        self._lower = self.text.lower()
                    found = term.lower in self._lower
            else:
                need = _PATTERN_NEEDS.get(term)
                found = (need is None or need in self.text) and bool(term.search(self.text))
            self._seen[term] = found
        return found


def _gate_terms(triggers: tuple[str, ...]) -> tuple[Any, ...]:
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


class Rule:
    id: ClassVar[str]
    category: ClassVar[str]
    severity: ClassVar[str]
    triggers: ClassVar[tuple[str, ...]]
    requires: ClassVar[tuple[tuple[Term, ...], ...]] = ()
    doc: ClassVar[catalog.RuleDoc]

    _gate: ClassVar[tuple[tuple[Any, ...], ...]] = ()

    @classmethod
    def applies_to(cls, text: str | TextProbe) -> bool:
        """Whether the rule can fire on ``text`` at all: one trigger and something of every ``requires`` group."""
        probe = text if isinstance(text, TextProbe) else TextProbe(text)
        return all(any(probe.has(t) for t in group) for group in cls._gate)

    def check(self, ctx: FileContext) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    def finding(
        self,
        ctx: FileContext,
        node: ast.AST,
        message: str,
        *,
        observation: str | None = None,
        next_test: str | None = None,
        fix: str | None = None,
        severity: str | None = None,
        measurements: dict[str, Any] | None = None,
        end_node: ast.AST | None = None,
    ) -> Finding:
        """A finding located at ``node``; the observation defaults to the node's source line."""
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        last = end_node or node
        end_line = getattr(last, "end_lineno", None)
        end_col = getattr(last, "end_col_offset", None)
        func = ctx.enclosing_function_name(node)
        return Finding(
            rule=self.id,
            category=self.category,  # type: ignore[arg-type]
            severity=(severity or self.severity),  # type: ignore[arg-type]
            message=message,
            location=Location(
                path=ctx.display_path,
                line=line,
                column=col + 1 if col is not None else None,
                end_line=end_line,
                end_column=end_col + 1 if end_col is not None else None,
                function=func,
            ),
            observation=observation if observation is not None else ctx.line_text(line),
            next_test=next_test if next_test is not None else self.doc.confirm,
            fix=fix if fix is not None else self.doc.instead,
            measurements=measurements or {},
        )


RULES: dict[str, type[Rule]] = {}


def register_rule(cls: type[Rule]) -> type[Rule]:
    for attr in ("id", "category", "severity", "triggers"):
        if not hasattr(cls, attr):
            raise catalog.CatalogError(f"rule class {cls.__name__} lacks `{attr}`")
    if not cls.triggers or not all(isinstance(t, str) and t for t in cls.triggers):
        raise catalog.CatalogError(f"rule {cls.id}: triggers must be a non-empty tuple of non-empty strings")
    for group in cls.requires:
        if not isinstance(group, tuple) or not group or not all((isinstance(t, str) and t) or isinstance(t, (re.Pattern, Word, NoCase, ModuleClassHeader, CallTo)) for t in group):
            raise catalog.CatalogError(f"rule {cls.id}: requires must be a tuple of non-empty tuples of strings or patterns")
    if cls.id in RULES and RULES[cls.id] is not cls:
        raise catalog.CatalogError(f"rule id {cls.id!r} defined twice")
    cls._gate = _cheapest_first((_gate_terms(cls.triggers), *cls.requires))
    cls.doc = catalog.register(catalog.parse_doc(cls.id, TOOL, cls.category, cls.severity, cls.__doc__))
    RULES[cls.id] = cls
    return cls


def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule class by id (importing the rule modules first)."""
    import mlsleuth.scan.rules  # noqa: F401 - registers on import

    return dict(sorted(RULES.items()))
