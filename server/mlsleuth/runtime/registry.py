"""One decorator for every runtime check (``trace``, ``diagnose``, ``nan``).

A runtime check is one function in its tool's ``checks.py``::

    @runtime_check("dead-relu", tool="trace", category="architecture", severity="warning")
    def dead_relu(run: TraceRun) -> Iterator[Found]:
        \"\"\"Most units of a ReLU are dead.

        What it finds: ... at least {pct.DEAD_RELU_FRACTION}% of output positions ...
        Why it matters: ...
        How to confirm: ...
        What to do instead: ...
        \"\"\"
        for name, rec in ...:
            yield Found("message", observation=..., next_test=..., module=name)

The decorator types the id, category and severity once: it registers the
docstring in :mod:`mlsleuth.catalog` (thresholds quoted from
:mod:`mlsleuth.runtime.thresholds` as ``{T.NAME:g}`` or, as a whole percentage,
``{pct.NAME}``) and turns each :class:`Found` the function yields into a
:class:`~mlsleuth.report.Finding` carrying them. Import-light: no torch, no
pydantic until findings are built.

Adding a runtime check: one such function in ``runtime/<tool>/checks.py`` (its
measurements come from ``runtime/child/``; add them there if the child does not
measure them yet), one test file ``tests/runtime/<tool>/test_<check_id_underscored>.py``
(a meta-test fails without it), and ``python -m mlsleuth.docgen`` to regenerate
the handbook's catalog ``refs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from mlsleuth.catalog import parse_doc, register
from mlsleuth.runtime import thresholds as T

TOOLS = ("trace", "diagnose", "nan")


class _Percent:
    """``{pct.NAME}`` in a check's docstring: ``int(100 * thresholds.NAME)``."""

    def __getattr__(self, name: str) -> int:
        return int(100 * getattr(T, name))


class Found:
    """What one check found: a Finding without the id, category and severity its decorator supplies.

    ``location`` keywords (``module``, ``step``, ``phase``, ``parameter``, ``op``, ...) with the value
    None are left out, as they always were.
    """

    __slots__ = ("fix", "location", "measurements", "message", "next_test", "observation", "severity")

    def __init__(self, message: str, *, observation: str = "", next_test: str = "", fix: str | None = None,
                 measurements: dict[str, Any] | None = None, severity: str | None = None, **location: Any) -> None:
        self.message = message
        self.severity = severity  # None: the check's own severity; a check may lower it when the evidence is weak
        self.observation = observation
        self.next_test = next_test
        self.fix = fix
        self.measurements = measurements
        self.location = location


@dataclass(frozen=True)
class RuntimeCheck:
    """A registered runtime check: its metadata and the function that derives its findings."""

    id: str
    tool: str
    category: str
    severity: str
    func: Callable[[Any], Iterable[Found]]
    role: str = "cause"  # 'cause': names a mechanism (where to fix); 'symptom': what a cause does to the run

    def findings(self, run: Any) -> list:
        """The check's findings for one child run. ``run`` carries ``path`` and ``location`` defaults."""
        from mlsleuth.report import Finding, Location

        out = []
        for found in self.func(run) or ():
            loc = {**run.location_defaults(), **{k: v for k, v in found.location.items() if v is not None}}
            out.append(Finding(
                rule=self.id, category=self.category, severity=found.severity or self.severity, message=found.message,
                observation=found.observation, next_test=found.next_test, fix=found.fix,
                measurements=found.measurements or {}, location=Location(**loc),
            ))
        return out


CHECKS: dict[str, dict[str, RuntimeCheck]] = {tool: {} for tool in TOOLS}


ROLES = ("cause", "symptom")


def runtime_check(check_id: str, *, tool: str, category: str, severity: str, role: str = "cause"):
    """Register the decorated function as runtime check ``check_id`` of ``tool`` (docs from its docstring).

    ``role``: ``"cause"`` for a check that names a mechanism and where it sits (a module, a call, a step), or
    ``"symptom"`` for one that reports what some cause does to the run (a flat loss, huge updates, a NaN);
    reports rank causes first and attach the symptoms to them as evidence.
    """
    if tool not in TOOLS:
        raise ValueError(f"unknown runtime tool {tool!r}")
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r} (one of {ROLES})")

    def deco(func: Callable[[Any], Iterable[Found]]) -> Callable[[Any], Iterable[Found]]:
        doc = (func.__doc__ or "").format(T=T, pct=_Percent())
        register(parse_doc(check_id, tool, category, severity, doc))
        CHECKS[tool][check_id] = RuntimeCheck(check_id, tool, category, severity, func, role)
        func.check = CHECKS[tool][check_id]  # type: ignore[attr-defined]
        return func

    return deco


def checks_of(tool: str) -> dict[str, RuntimeCheck]:
    """Every registered check of ``tool``, in definition order (imports the tool's ``checks`` module)."""
    import importlib

    importlib.import_module(f"mlsleuth.runtime.{tool}.checks")
    return CHECKS[tool]


def run_checks(tool: str, run: Any, *, only: Callable[[str], bool] | None = None) -> Iterator:
    """The findings of every check of ``tool`` (or those whose id passes ``only``) on one child run."""
    for check in checks_of(tool).values():
        if only is None or only(check.id):
            yield from check.findings(run)
