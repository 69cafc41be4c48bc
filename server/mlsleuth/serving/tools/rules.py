"""``list_rules`` and ``explain_rule``: what each rule or check means and how to confirm it."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import difflib
import inspect
from typing import Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from mlsleuth.report import Category

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
KNOWN_TOOLS = ("scan", "trace", "diagnose", "nan", "sweep")


class RuleSummary(BaseModel):
    id: str
    tool: str = Field(description="Which mlsleuth tool emits it: scan, trace, diagnose, nan or sweep.")
    category: str
    severity: str = Field(description="Default severity.")
    title: str


class RuleList(BaseModel):
    count: int
    rules: dict[str, str] = Field(description="Rule id -> one-line title.")
    details: list[RuleSummary] | None = Field(default=None, description="With detail='full': each rule's tool, category and default severity.")
    resource_template: str = Field(default="mlsleuth://rules/{rule_id}", description="Read one rule's full documentation as Markdown.")


class RuleExplanation(BaseModel):
    id: str
    tool: str
    category: str
    severity: str
    title: str
    what_it_finds: str
    why_it_matters: str
    how_to_confirm: str = Field(description="The cheapest test that tells a true finding from a false alarm.")
    what_to_do_instead: str
    same_bug_as: list[str] = Field(
        default_factory=list,
        description="Checks of other mlsleuth tools that detect the same bug (a static rule's runtime twin, or the reverse).",
    )


def catalog():
    """Every RuleDoc by id; a ToolError (not a crash) if a documenting module is broken."""
    from mlsleuth.catalog import load_all

    try:
        return load_all()
    except Exception as exc:
        raise ToolError(f"the rule catalog failed to load ({type(exc).__name__}: {exc}); this is a bug in this mlsleuth installation, please report it") from exc


def lookup(rule_id: str):
    """The RuleDoc for ``rule_id``; ToolError naming close matches otherwise."""
    docs = catalog()
    doc = docs.get(rule_id.strip())
    if doc is None:
        close = difflib.get_close_matches(rule_id.strip().lower(), list(docs), n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(close)}?" if close else " Call list_rules to see every id."
        raise ToolError(f"unknown rule id {rule_id!r}.{hint}")
    return doc


_LIST_RULES_DESCRIPTION = """List the rule and check ids mlsleuth knows, with a one-line title each.

        Call this to see what mlsleuth can detect before choosing a tool, or to
        find the id to pass to `explain_rule` or to `scan`'s select/ignore.
        Filter with `tool` or `category`; `detail: "full"` adds each rule's
        tool, category and severity.
        """

_EXPLAIN_RULE_DESCRIPTION = """Explain a rule or check: what it finds, why it matters, how to confirm it, what to do instead.

        Call this when a finding from scan/trace/diagnose/nan/sweep is unclear,
        or before changing code because of one: the "how to confirm" section is
        the cheapest test that separates a real bug from a false alarm.
        """


def register(server, env) -> None:
    @server.tool(
        title="List mlsleuth rules and checks",
        annotations=READ_ONLY,
        description=inspect.cleandoc(_LIST_RULES_DESCRIPTION),
    )
    def list_rules(
        tool: Annotated[str | None, Field(description="Only rules emitted by this tool: scan, trace, diagnose, nan or sweep.")] = None,
        category: Annotated[Category | None, Field(description="Only rules in this category, e.g. 'loss' or 'numerical'.")] = None,
        detail: Annotated[Literal["brief", "full"], Field(description="brief: id and title; full: also tool, category, severity.")] = "brief",
    ) -> Annotated[CallToolResult, RuleList]:
        if tool is not None and tool not in KNOWN_TOOLS:
            raise ToolError(f"unknown tool {tool!r}; use one of {', '.join(KNOWN_TOOLS)}, or omit it for all")
        docs = [d for d in catalog().values() if (tool is None or d.tool == tool) and (category is None or d.category == category)]
        listing = RuleList(count=len(docs), rules={d.id: d.title for d in docs})
        if detail == "full":
            listing.details = [RuleSummary(id=d.id, tool=d.tool, category=d.category, severity=d.severity, title=d.title) for d in docs]
            text = listing.model_dump_json(exclude_none=True)
        else:  # one line per rule as text: the structured content is not repeated as JSON
            text = "\n".join([*(f"{d.id}: {d.title}" for d in docs),
                              f"({len(docs)} rules; explain_rule ID for one, detail='full' for tool, category and severity)"])
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=listing.model_dump(mode="json", exclude_none=True))

    @server.tool(
        title="Explain one mlsleuth rule",
        annotations=READ_ONLY,
        description=inspect.cleandoc(_EXPLAIN_RULE_DESCRIPTION),
    )
    def explain_rule(
        rule_id: Annotated[str, Field(min_length=1, max_length=100, description="A rule or check id from a finding's `rule` field, e.g. 'nan-equality-check'.")],
    ) -> RuleExplanation:
        d = lookup(rule_id)
        return RuleExplanation(**d.as_dict())
