"""Static and runtime findings on the same cause become one clue, ranked for the symptom.

A clue is a :class:`~mlsleuth.report.Finding` whose ``measurements["evidence"]`` lists each kind of
evidence behind it: ``static`` (a scan rule, at a file and line) and ``runtime`` (a trace check, at a step,
with what it measured). Two findings are the same cause when the catalog pairs their ids
(:data:`mlsleuth.catalog.SAME_BUG`): the scan's ``softmax-into-logit-loss`` and the trace's
``softmax-into-cross-entropy`` are one clue with both kinds of evidence. Runtime findings that trace's
ranking marked as consequences of a cause (``consistent_with``) are attached to that cause's clue.
"""

from __future__ import annotations

from typing import Any

from mlsleuth.catalog import SAME_BUG
from mlsleuth.report import SEVERITY_RANK, Finding, Location
from mlsleuth.triage.symptoms import Reading, relevance

FLAGGING = ("error", "warning")
_RUNTIME_FIELDS = ("module", "parameter", "step", "phase", "op")


def _group_of(rule: str) -> int | None:
    return next((i for i, group in enumerate(SAME_BUG) if rule in group), None)


def _static_evidence(f: Finding) -> dict[str, Any]:
    return {"kind": "static", "tool": "scan", "rule": f.rule, "where": f.location.source_label() or "?",
            "seen": f.observation or f.message}


def _runtime_evidence(f: Finding, kind: str = "runtime") -> dict[str, Any]:
    where = f.location.runtime_label() or (f.location.source_label() or "the traced run")
    return {"kind": kind, "tool": "trace", "rule": f.rule, "where": where, "seen": f.observation or f.message}


def _merge_location(static: Location, runtime: Location) -> Location:
    loc = static.model_copy()
    for name in _RUNTIME_FIELDS:
        if getattr(loc, name) is None and getattr(runtime, name) is not None:
            setattr(loc, name, getattr(runtime, name))
    return loc


def _clue(static: Finding | None, runtime: list[Finding], consequences: list[Finding]) -> Finding:
    lead = static or runtime[0]
    clue = lead.model_copy(deep=True)
    clue.id = ""
    evidence = ([_static_evidence(static)] if static else []) + [_runtime_evidence(r) for r in runtime]
    evidence += [_runtime_evidence(c, "consequence") for c in consequences]
    if static and runtime:
        clue.location = _merge_location(static.location, runtime[0].location)
        clue.severity = min((static.severity, *(r.severity for r in runtime)), key=lambda s: SEVERITY_RANK[s])
        clue.observation = f"in the code: {(static.observation or static.message).rstrip('.')}. At run time: " + "; ".join(
            f"{r.rule}: {r.observation or r.message}" for r in runtime)
        if not clue.next_test:
            clue.next_test = runtime[0].next_test
    measurements = {"evidence": evidence, "ids": sorted({e["rule"] for e in evidence if e["kind"] != "consequence"})}
    for r in runtime:
        for key, value in r.measurements.items():
            if key not in ("evidence", "consistent_with"):
                measurements.setdefault(f"runtime.{key}", value)
    clue.measurements = measurements
    return clue


def merge(static: list[Finding], runtime: list[Finding]) -> list[Finding]:
    """One clue per cause: flagged static findings and flagged runtime findings, paired where the catalog pairs them."""
    static = list({(f.rule, f.location.path, f.location.cell, f.location.line): f
                   for f in reversed(static) if f.severity in FLAGGING}.values())[::-1]  # one clue per rule and line
    runtime = [f for f in runtime if f.severity in FLAGGING]
    # runtime consequences that trace attached to a lead cause ride along with that cause's clue
    led = {f.measurements.get("consistent_with") for f in runtime if f.measurements.get("consistent_with")}
    consequences = [f for f in runtime if f.measurements.get("consistent_with")]
    causes = [f for f in runtime if not f.measurements.get("consistent_with")]

    used_static: set[int] = set()
    clues: list[Finding] = []
    claimed_runtime: set[int] = set()
    for i, r in enumerate(causes):
        if i in claimed_runtime:
            continue
        group = _group_of(r.rule)
        twins_runtime = [r] + [o for j, o in enumerate(causes) if j > i and group is not None and _group_of(o.rule) == group]
        claimed_runtime.update(j for j, o in enumerate(causes) if o in twins_runtime)
        partner = None
        if group is not None:
            for k, s in enumerate(static):
                if k not in used_static and _group_of(s.rule) == group:
                    partner = s
                    used_static.add(k)
                    break
        attached = [c for c in consequences if c.measurements.get("consistent_with") in {t.rule for t in twins_runtime}]
        clues.append(_clue(partner, twins_runtime, attached))
    for k, s in enumerate(static):
        if k not in used_static:
            clues.append(_clue(s, [], []))
    if not causes or not (led & {c.rule for c in causes}):  # consequences without a runtime cause: clues of their own
        for c in consequences:
            clues.append(_clue(None, [c], []))
    return clues


def kinds(clue: Finding) -> set[str]:
    return {e["kind"] for e in clue.measurements.get("evidence", []) if e["kind"] in ("static", "runtime")}


def rank(clues: list[Finding], readings: list[Reading], runtime_roles: dict[str, str]) -> list[Finding]:
    """Decisive first: causes before what a cause does to the run (a flat loss restates the complaint, it does not
    explain it), then fit to the symptom, both kinds of evidence, errors first, a line of code to look at, then
    the order the tools gave."""

    def key(item: tuple[int, Finding]) -> tuple:
        index, clue = item
        ids = tuple(clue.measurements.get("ids", [clue.rule]))
        fit = relevance(readings, ids, clue.category) if readings else 0
        symptom_only = all(runtime_roles.get(i) == "symptom" for i in ids) if ids else False
        return (symptom_only, -fit, len(kinds(clue)) < 2, SEVERITY_RANK[clue.severity], clue.location.line is None, index)

    ordered = [clue for _, clue in sorted(enumerate(clues), key=key)]
    for clue in ordered:
        if readings:
            ids = tuple(clue.measurements.get("ids", [clue.rule]))
            clue.measurements["symptom_fit"] = ("names this symptom", "category fits the symptom", "unrelated to the symptom")[
                2 - relevance(readings, ids, clue.category)]
    return ordered
