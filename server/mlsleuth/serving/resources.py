"""The skill's Markdown and every rule's documentation as ``mlsleuth://`` resources.

* ``mlsleuth://skill`` - SKILL.md, the entry point;
* ``mlsleuth://refs/{name}``, ``mlsleuth://rl/{name}``, ``mlsleuth://pinn/{name}`` -
  the chapters, one per ``.md`` file (listed from disk, so new chapters need no code);
* ``mlsleuth://rules/{rule_id}`` - one rule's documentation, generated from the catalog;
* ``mlsleuth://schema/report`` - the full JSON Schema of the report the tools return
  (tools/list carries a compact one, see :mod:`.schemas`).

Files are read when a client asks, not at start-up.
"""

from __future__ import annotations

import difflib
import logging

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.resources import FunctionResource

from mlsleuth.serving import skill_files

log = logging.getLogger("mlsleuth.serve")
MARKDOWN = "text/markdown"


def _read(doc: skill_files.SkillDoc) -> str:
    try:
        return doc.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResourceNotFoundError(f"{doc.uri}: the file {doc.path} was removed after the server started") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"{doc.uri}: cannot read {doc.path}: {exc}") from None


def _reader(doc: skill_files.SkillDoc):
    def read() -> str:
        return _read(doc)

    read.__name__ = f"read_{doc.section or 'skill'}_{doc.name}".replace("-", "_").replace(".", "_")
    return read


def _section_reader(section: str):
    def read(name: str) -> str:
        try:
            doc = skill_files.section_doc(section, name)
        except skill_files.SkillFilesMissing as exc:
            raise ResourceError(str(exc)) from None
        if doc is None:
            try:
                available = [d.name for d in skill_files.list_docs() if d.section == section]
            except skill_files.SkillFilesMissing:
                available = []
            close = difflib.get_close_matches(name, available, n=3)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            listing = ", ".join(available) or "(none)"
            raise ResourceNotFoundError(f"no chapter {name!r} in {section}/; {hint}available: {listing}")
        return _read(doc)

    read.__name__ = f"read_{section}_chapter"
    return read


def _read_rule(rule_id: str) -> str:
    from mlsleuth.catalog import load_all

    try:
        docs = load_all()
    except Exception as exc:
        raise ResourceError(f"the rule catalog failed to load ({type(exc).__name__}: {exc}); please report this bug") from exc
    doc = docs.get(rule_id)
    if doc is None:
        close = difflib.get_close_matches(rule_id, list(docs), n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise ResourceNotFoundError(f"unknown rule id {rule_id!r}; {hint}the list_rules tool lists every id")
    return doc.markdown(heading_level=1)


def _skill_missing_reader(message: str):
    def read() -> str:
        raise ResourceError(message)

    return read


def _completions(uri: str, prefix: str) -> list[str]:
    """Values for a template argument: chapter names or rule ids starting with ``prefix``."""
    if uri == "mlsleuth://rules/{rule_id}":
        from mlsleuth.catalog import load_all

        try:
            candidates = list(load_all())
        except Exception:  # noqa: BLE001 - completion is a convenience; a broken catalog shows up elsewhere
            return []
    else:
        section = next((sec for sec in skill_files.SECTIONS if uri == f"mlsleuth://{sec}/{{name}}"), None)
        if section is None:
            return []
        try:
            candidates = [d.name for d in skill_files.list_docs() if d.section == section]
        except skill_files.SkillFilesMissing:
            return []
    return [c for c in candidates if c.startswith(prefix)]


def register(server: MCPServer) -> None:
    try:
        docs = skill_files.list_docs()
    except skill_files.SkillFilesMissing as exc:
        log.warning("%s", exc)
        server.add_resource(
            FunctionResource.from_function(
                _skill_missing_reader(str(exc)), uri="mlsleuth://skill", name="SKILL.md", mime_type=MARKDOWN,
                description="The mlsleuth debugging skill (missing from this installation).",
            )
        )
        docs = []
    for doc in docs:
        if doc.section is None:
            description = "The mlsleuth skill's entry point: how to debug training clue-first, and which chapter or tool to use when. Read this first."
            name = "SKILL.md"
        else:
            description = f"Handbook chapter {doc.section}/{doc.name}.md: {doc.title()}"
            name = f"{doc.section}/{doc.name}.md"
        server.add_resource(
            FunctionResource.from_function(_reader(doc), uri=doc.uri, name=name, title=doc.title(), description=description, mime_type=MARKDOWN)
        )
    descriptions = {
        "refs": "A chapter of the mlsleuth handbook (refs/NAME.md); resources/list shows the names.",
        "rl": "A chapter of the reinforcement-learning sub-skill (rl/NAME.md).",
        "pinn": "A chapter of the physics-informed-network sub-skill (pinn/NAME.md).",
    }
    for section in skill_files.SECTIONS:
        server.resource(f"mlsleuth://{section}/{{name}}", name=f"{section}-chapter", description=descriptions[section], mime_type=MARKDOWN)(
            _section_reader(section)
        )
    server.resource(
        "mlsleuth://rules/{rule_id}",
        name="rule-doc",
        description="Documentation of one rule or runtime check: what it finds, why it matters, how to confirm it, what to do instead.",
        mime_type=MARKDOWN,
    )(_read_rule)

    from mlsleuth.serving.schemas import REPORT_SCHEMA_URI, full_report_schema_json

    server.resource(
        REPORT_SCHEMA_URI,
        name="report-schema",
        description="The full JSON Schema of the report every analysis tool returns (tools/list shows a compact one).",
        mime_type="application/schema+json",
    )(full_report_schema_json)

    @server.completion()
    async def complete(ref, argument, context):
        from mcp.types import Completion, ResourceTemplateReference

        if not isinstance(ref, ResourceTemplateReference):
            return None
        values = _completions(str(ref.uri), argument.value or "")
        return Completion(values=values[:100], total=len(values), has_more=len(values) > 100)
