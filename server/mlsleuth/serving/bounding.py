"""Keep every tool result small enough for a model's context.

Clients reject or silently cut tool results beyond roughly 25k tokens. A
report is bounded three ways before it leaves the server:

1. paging: ``max_findings`` findings starting at ``offset`` (``Report.limit``);
2. long text fields (captured output, tracebacks, observations) are clipped;
3. a character budget on the serialized result: findings are dropped from the
   end of the page until it fits, and the page says where to continue.

``truncated`` is true whenever anything was left out, and
``summary.stats.next_offset`` tells the agent what to pass next.
"""

from __future__ import annotations

import pydantic_core
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from mlsleuth.report import ErrorEntry, Finding, Report

# Measured on the compact JSON of the structured result. JSON costs about 3 to 4
# characters per token, so 40k characters is 10k-13k tokens; the text copy the
# SDK also sends (see as_result) is smaller, so a client that shows the model
# both stays near 20k tokens, and one that shows either stays well below.
DEFAULT_CHAR_BUDGET = 40_000
MAX_FINDINGS_CAP = 200
FIELD_LIMIT = 2_000  # characters kept of any one free-text field
MEASUREMENTS_LIMIT = 6_000  # characters of one finding's measurements (JSON)
DETAIL_LIMIT = 4_000  # characters kept of an error's traceback / captured output
MAX_ERRORS = 50


def _clip(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    cut = len(text) - limit
    return f"{text[:limit]}... [{cut} more characters cut]"


def _clip_tail(text: str | None, limit: int) -> str | None:
    """Keep the end: the last lines of a traceback say the most."""
    if text is None or len(text) <= limit:
        return text
    cut = len(text) - limit
    return f"[{cut} earlier characters cut] ...{text[-limit:]}"


def _clip_finding(f: Finding) -> Finding:
    f.message = _clip(f.message, FIELD_LIMIT) or f.message
    f.observation = _clip(f.observation, FIELD_LIMIT) or ""
    f.next_test = _clip(f.next_test, FIELD_LIMIT) or ""
    f.fix = _clip(f.fix, FIELD_LIMIT)
    if _size(f.measurements) > MEASUREMENTS_LIMIT:
        kept = dict(f.measurements)
        omitted: list[str] = []
        for _, key in sorted(((_size(v), k) for k, v in kept.items()), reverse=True):
            if _size(kept) <= MEASUREMENTS_LIMIT - 300:
                break
            del kept[key]
            omitted.append(key)
        kept["omitted"] = omitted
        kept["omitted_note"] = "too large to return here; the CLI with --format json has every measurement"
        f.measurements = kept
    return f


def _clip_error(e: ErrorEntry) -> ErrorEntry:
    e.message = _clip(e.message, FIELD_LIMIT) or e.message
    e.detail = _clip_tail(e.detail, DETAIL_LIMIT)
    return e


def _size(obj: object) -> int:
    return len(pydantic_core.to_json(obj))


def as_result(report: Report) -> CallToolResult:
    """The tool result for ``report``: structured content, plus the same data as
    compact JSON text without empty fields (for clients that read only text)."""
    text = report.model_dump_json(exclude_none=True)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=report.model_dump(mode="json"))


def _bound_stats(page: Report, budget: int) -> None:
    """Drop the largest ``summary.stats`` entries (tables, raw series) until the rest fits ``budget``."""
    stats = page.summary.stats
    if _size(stats) <= budget:
        return
    sizes = sorted(((_size(v), k) for k, v in stats.items()), reverse=True)
    omitted: list[str] = []
    for _, key in sizes:
        if _size(stats) <= budget - 400:
            break
        del stats[key]
        omitted.append(key)
    stats["omitted_stats"] = omitted
    stats["omitted_stats_note"] = "these entries were too large to return here; run the same analysis from the CLI with --format json to get them"
    page.truncated = True


def check_paging(max_findings: int, offset: int) -> None:
    if not 1 <= max_findings <= MAX_FINDINGS_CAP:
        raise ToolError(f"max_findings must be between 1 and {MAX_FINDINGS_CAP}, got {max_findings}")
    if offset < 0:
        raise ToolError(f"offset must be 0 or more, got {offset}")


def bound_report(report: Report, *, max_findings: int, offset: int = 0, char_budget: int = DEFAULT_CHAR_BUDGET) -> Report:
    """One page of ``report`` that fits ``char_budget`` characters of JSON."""
    check_paging(max_findings, offset)
    total = len(report.findings)
    if total and offset >= total:
        raise ToolError(f"offset {offset} is past the last finding (there are {total}); use an offset below {total}, or 0 to start over")
    page = report.limit(max_findings, offset)
    page.findings = [_clip_finding(f) for f in page.findings]
    _bound_stats(page, char_budget // 4)
    errors = [_clip_error(e) for e in page.errors[:MAX_ERRORS]]
    findings = page.findings
    page.findings, page.errors = [], []
    room = char_budget - _size(page) - 300  # the stats added below
    # Errors get at most half the room; findings (the clues) the rest.
    error_room = room // 2
    for e in errors:
        cost = _size(e) + 8
        if cost > error_room:
            break
        page.errors.append(e)
        error_room -= cost
        room -= cost
    dropped = len(report.errors) - len(page.errors)
    if dropped:
        page.summary.stats["errors_not_shown"] = dropped
        page.truncated = True

    kept: list[Finding] = []
    for f in findings:
        cost = _size(f) + 8
        if cost > room and kept:
            break
        if cost > room:  # not even one fits: send it anyway, clipped hard
            f.observation = _clip(f.observation, 200) or ""
            f.measurements = {}
        kept.append(f)
        room -= cost
    page.findings = kept
    if len(kept) < len(findings):
        page.truncated = True
        page.summary.stats["returned"] = len(kept)
        page.summary.stats["next_offset"] = offset + len(kept)
        page.summary.stats["cut_by_size"] = True
    return page
