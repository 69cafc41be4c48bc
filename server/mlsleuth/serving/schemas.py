"""The report's output schema as tools list it: compact, with the full one a resource away.

Five tools return the same :class:`~mlsleuth.report.Report`; its full JSON
Schema (about 5.6 KB) listed with each of them made ``tools/list`` mostly five
copies of one schema. Each report tool lists :data:`COMPACT_REPORT_SCHEMA`
instead: the top-level keys and what a finding and an error must hold, enough
for a client to validate and an agent to read the result, with a pointer to
the resource ``mlsleuth://schema/report`` that serves the full schema. The
server still validates every result against the full model before sending it.
"""

from __future__ import annotations

from typing import Any

REPORT_SCHEMA_URI = "mlsleuth://schema/report"

COMPACT_REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        f"An mlsleuth report; full JSON Schema: resource {REPORT_SCHEMA_URI}. findings: clues, each with rule, category, "
        "severity, message (the inference), location, observation (what was seen), next_test (the cheapest confirmation) "
        "and fix. errors: what could not be done. summary: text, counts, stats. truncated: more findings than returned."
    ),
    "properties": {
        "tool": {"type": "string"},
        "version": {"type": "string"},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["rule", "category", "severity", "message"],
                "properties": {"rule": {"type": "string"}, "severity": {"enum": ["error", "warning", "info"]}, "location": {"type": "object"}},
            },
        },
        "errors": {"type": "array", "items": {"type": "object", "required": ["kind", "message"]}},
        "summary": {"type": "object"},
        "truncated": {"type": "boolean"},
    },
    "required": ["tool"],
}


def full_report_schema_json() -> str:
    import json

    from mlsleuth.report import json_schema

    return json.dumps(json_schema(), indent=1)
