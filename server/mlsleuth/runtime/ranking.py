"""Order a runtime report so that the first finding is the decisive one.

A run with one bug often trips several checks: the mechanism (a module that mixes samples, a zero_grad
that is missing, a log of a value that reached 0) and what it does to the run (a loss at the label prior,
huge update ratios, a NaN). Each check declares its ``role`` (see :mod:`mlsleuth.runtime.registry`).
:func:`rank` puts warnings and errors before info, causes before symptoms, then errors before warnings,
then findings that point at a line of the user's code, then the earliest step first; and it attaches the flagged symptoms to the first flagged cause as its
evidence, so an agent reads the cause first and sees the rest as consequences, not as rival leads.
"""

from __future__ import annotations

from typing import Any

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
FLAGGING = ("error", "warning")


def rank(findings: list, tool: str) -> list:
    """The findings in decisive-first order, symptoms attached to the leading cause (``measurements``)."""
    from mlsleuth.runtime.registry import checks_of

    roles = {check.id: check.role for check in checks_of(tool).values()}

    def key(item: tuple[int, Any]) -> tuple:
        index, f = item
        step = f.location.step
        return (f.severity not in FLAGGING, roles.get(f.rule, "cause") != "cause", SEVERITY_ORDER.get(f.severity, 3),
                f.location.line is None, step if step is not None else 1 << 30, index)

    ordered = [f for _, f in sorted(enumerate(findings), key=key)]
    causes = [f for f in ordered if f.severity in FLAGGING and roles.get(f.rule, "cause") == "cause"]
    symptoms = [f for f in ordered if f.severity in FLAGGING and roles.get(f.rule) == "symptom"]
    if causes and symptoms:
        lead = causes[0]
        lead.measurements["evidence"] = [{"rule": s.rule, "message": s.message} for s in symptoms[:10]]
        names = ", ".join(dict.fromkeys(s.rule for s in symptoms))
        lead.observation = (lead.observation + f". Also seen in this run, consistent with this cause: {names}").lstrip(". ")
        for s in symptoms:
            s.measurements["consistent_with"] = lead.rule
    return ordered
