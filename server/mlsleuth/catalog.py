"""Documentation of every rule and check, whatever tool emits it.

Static rules (``mlsleuth.scan``) and runtime checks (``trace``, ``diagnose``,
``nan``, ``sweep``) each register a :class:`RuleDoc`. The handbook's catalog,
``mlsleuth rules``, the MCP ``explain_rule`` tool and SARIF rule metadata are
all generated from these entries, so code and docs cannot drift.

A rule's documentation is written as a docstring in four labelled sections::

    Short title on the first line.

    What it finds: ...
    Why it matters: ...
    How to confirm: ...
    What to do instead: ...

Sections may span several lines; blank lines end nothing but a section
heading starts the next one.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

from mlsleuth.report import CATEGORIES, SEVERITIES

SECTIONS = {
    "what it finds": "finds",
    "why it matters": "why",
    "how to confirm": "confirm",
    "what to do instead": "instead",
}
_HEADING = re.compile(r"^(what it finds|why it matters|how to confirm|what to do instead)\s*:\s*", re.IGNORECASE)
RULE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class CatalogError(ValueError):
    """A rule's metadata or documentation is malformed (a programming error)."""


@dataclass(frozen=True)
class RuleDoc:
    id: str
    tool: str
    category: str
    severity: str
    title: str
    finds: str
    why: str
    confirm: str
    instead: str
    aliases: tuple[str, ...] = field(default=())
    reach: str = ""  # static rules: how far values are followed ("function", "file" or "project")
    fix: str = ""  # static rules with a mechanical fix: what `mlsleuth scan --fix` rewrites, and when it is unsafe
    fix_unsafe_only: bool = False  # every fix of the rule is unsafe: applied only with --unsafe-fixes

    @property
    def same_bug_as(self) -> tuple[str, ...]:
        """Ids of other tools' checks that detect the same bug (see :data:`SAME_BUG`)."""
        return same_bug_as(self.id)

    def markdown(self, heading_level: int = 3) -> str:
        hashes = "#" * heading_level
        twins = ""
        if self.same_bug_as:
            twins = "**Same bug, other tool.** " + ", ".join(f"`{t}`" for t in self.same_bug_as) + "\n\n"
        return (
            f"{hashes} `{self.id}`: {self.title}\n\n"
            f"*{self.tool}* · category `{self.category}` · default severity `{self.severity}`"
            + (f" · follows values {REACH_WORDS[self.reach]}" if self.reach else "")
            + ((" · fixable with `--fix --unsafe-fixes`" if self.fix_unsafe_only else " · fixable with `--fix`") if self.fix else "")
            + "\n\n"
            f"**What it finds.** {self.finds}\n\n"
            f"**Why it matters.** {self.why}\n\n"
            f"**How to confirm.** {self.confirm}\n\n"
            f"**What to do instead.** {self.instead}\n"
            + (f"\n**Fix.** {self.fix}\n" if self.fix else "")
            + (f"\n{twins.rstrip()}\n" if twins else "")
        )

    def as_dict(self) -> dict[str, str]:
        return {
            "id": self.id,
            "tool": self.tool,
            "category": self.category,
            "severity": self.severity,
            "title": self.title,
            "what_it_finds": self.finds,
            "why_it_matters": self.why,
            "how_to_confirm": self.confirm,
            "what_to_do_instead": self.instead,
            "same_bug_as": list(self.same_bug_as),
            **({"reach": self.reach} if self.reach else {}),
            **({"fix": self.fix} if self.fix else {}),
        }


REACH_WORDS = {
    "function": "within one function",
    "file": "within one file (its functions, classes and helpers)",
    "project": "across the project (imports, callers' arguments, base classes in other files)",
}


def parse_doc(rule_id: str, tool: str, category: str, severity: str, doc: str | None, reach: str = "") -> RuleDoc:
    """Build a :class:`RuleDoc` from a four-section docstring; raise CatalogError if malformed."""
    if not RULE_ID.match(rule_id):
        raise CatalogError(f"rule id {rule_id!r} is not kebab-case")
    if category not in CATEGORIES:
        raise CatalogError(f"rule {rule_id}: unknown category {category!r}; use one of {', '.join(CATEGORIES)}")
    if severity not in SEVERITIES:
        raise CatalogError(f"rule {rule_id}: unknown severity {severity!r}")
    if reach and reach not in REACH_WORDS:
        raise CatalogError(f"rule {rule_id}: unknown reach {reach!r}; use one of {', '.join(REACH_WORDS)}")
    text = inspect.cleandoc(doc or "")
    if not text:
        raise CatalogError(f"rule {rule_id}: missing docstring")
    lines = text.splitlines()
    title = lines[0].strip()
    parts: dict[str, list[str]] = {}
    current: str | None = None
    for line in lines[1:]:
        m = _HEADING.match(line.strip())
        if m:
            current = SECTIONS[m.group(1).lower()]
            parts[current] = [line.strip()[m.end():]]
        elif current is not None:
            parts[current].append(line.strip())
    missing = [name for name, key in SECTIONS.items() if not " ".join(parts.get(key, [])).strip()]
    if missing:
        raise CatalogError(f"rule {rule_id}: docstring lacks section(s): {', '.join(missing)}")

    def joined(key: str) -> str:
        return re.sub(r"\s+", " ", " ".join(parts[key])).strip()

    return RuleDoc(
        id=rule_id,
        tool=tool,
        category=category,
        severity=severity,
        title=title.rstrip("."),
        finds=joined("finds"),
        why=joined("why"),
        confirm=joined("confirm"),
        instead=joined("instead"),
        reach=reach,
    )


_DOCS: dict[str, RuleDoc] = {}

# The static scanner reads the code; the runtime tools watch it run. Where both
# catch the same bug their ids differ (a static rule names the code pattern, a
# runtime check the symptom it measured), so the pairs are listed here and
# every catalog entry points at its twin. Each id must be registered (tested).
SAME_BUG: tuple[tuple[str, ...], ...] = (
    ("missing-zero-grad", "zero-grad-missing"),
    ("zero-grad-between-backward-and-step", "zero-grad-before-step"),
    ("step-before-backward", "step-without-backward"),
    ("scheduler-before-optimizer", "scheduler-step-before-optimizer-step"),
    ("softmax-into-logit-loss", "softmax-into-cross-entropy", "sigmoid-into-bce-with-logits"),
    ("softmax-into-nll-loss", "nll-loss-on-logits"),
    ("functional-dropout-always-on", "functional-dropout-in-eval"),
    ("eval-without-eval-mode", "eval-in-train-mode"),
    ("train-mode-not-restored", "train-mode-never-set", "trained-in-eval-mode"),
    ("clip-grad-misplaced", "clip-after-optimizer-step"),
    ("modules-in-plain-container", "unregistered-submodule"),
    ("learned-tensor-not-registered", "trainable-tensor-not-optimized", "learnable-value-in-plain-tensor"),
    ("optimizer-misses-parameters", "param-not-in-optimizer"),
    ("optimizer-rebuilt-in-loop", "optimizer-rebuilt-each-step"),
    ("padding-counted-in-loss", "padding-scored-as-target"),
    ("kldiv-input-not-log-probs", "kl-div-input-not-log-probs"),
    ("grad-accumulation-loss-not-scaled", "grad-accumulation-unscaled"),
    ("causal-mask-missing", "causal-leakage"),
    ("best-state-dict-by-reference", "restored-state-is-live-weights"),
    ("in-place-on-shared-value", "module-overwrites-input-still-used"),
    ("checkpoint-without-scheduler-state", "resume-without-scheduler-state"),
    ("loss-broadcasts-column-against-vector", "loss-target-broadcast"),
)


def same_bug_as(rule_id: str) -> tuple[str, ...]:
    """Other ids in ``rule_id``'s :data:`SAME_BUG` group, in table order."""
    for group in SAME_BUG:
        if rule_id in group:
            return tuple(other for other in group if other != rule_id)
    return ()


def register(doc: RuleDoc) -> RuleDoc:
    """Add a rule's documentation; ids are unique across all tools."""
    existing = _DOCS.get(doc.id)
    if existing is not None and existing != doc:
        raise CatalogError(f"rule id {doc.id!r} registered twice ({existing.tool} and {doc.tool})")
    _DOCS[doc.id] = doc
    return doc


# Modules that register documentation when imported. Each capability adds its
# own line; they must stay import-light (no torch, no numpy at import time).
DOC_MODULES: list[str] = [
    "mlsleuth.scan.rules",
    "mlsleuth.sweep.checks",
    "mlsleuth.runtime.trace.checks",
    "mlsleuth.runtime.diagnose.checks",
    "mlsleuth.runtime.nan.checks",
]


def load_all() -> dict[str, RuleDoc]:
    """Import every documenting module and return all docs by id, sorted."""
    import importlib

    for name in DOC_MODULES:
        importlib.import_module(name)
    return dict(sorted(_DOCS.items()))


def get(rule_id: str) -> RuleDoc | None:
    return load_all().get(rule_id)
