"""What the server's listings cost an agent's context: tools/list carries one compact report schema per
tool (the full one is a resource), and list_rules answers with ids and titles unless asked for more.
`python benchmarks/bench_agent_sizes.py` prints the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp import Client
from mlsleuth.catalog import load_all
from mlsleuth.mcp_server import build_server
from mlsleuth.report import json_schema

REPORT_TOOLS = ("triage", "scan", "trace_training", "run_diagnostics", "locate_nan", "compare_sweep")


@pytest.fixture()
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MLSLEUTH_EXTRA_TOOLS", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text("import torch.nn.functional as F\n\ndef f(z, y):\n    return F.cross_entropy(F.softmax(z, dim=1), y)\n")
    return build_server(root)


def _size(model) -> int:
    return len(model.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))


def _go(server, fn):
    async def go():
        async with Client(server) as c:
            return await fn(c)

    return anyio.run(go)


def test_tools_list_fits_a_small_budget(server) -> None:
    listed = _go(server, lambda c: c.list_tools())
    assert _size(listed) < 24_000, f"tools/list is {_size(listed)} bytes"  # 40.9 KB before the compact schema
    schemas = {t.name: t.output_schema for t in listed.tools if t.name in REPORT_TOOLS}
    assert len(schemas) == len(REPORT_TOOLS)
    compact = json.dumps(schemas["scan"], sort_keys=True)
    assert all(json.dumps(s, sort_keys=True) == compact for s in schemas.values())
    assert len(compact) < 1_500 and "mlsleuth://schema/report" in compact


def test_the_full_report_schema_is_a_resource_and_both_schemas_accept_a_real_report(server) -> None:
    async def fn(c):
        resource = await c.read_resource("mlsleuth://schema/report")
        result = await c.call_tool("scan", {})
        tools = {t.name: t for t in (await c.list_tools()).tools}
        return resource, result, tools["scan"].output_schema

    resource, result, compact = _go(server, fn)
    full = json.loads(resource.contents[0].text)
    assert full == json_schema()
    report = result.structured_content
    assert report["findings"], "the scan should have found the softmax"
    jsonschema.validate(report, full)
    jsonschema.validate(report, compact)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**report, "findings": [{"rule": "x"}]}, compact)  # the compact one still checks findings


def test_list_rules_is_compact_by_default_and_full_on_request(server) -> None:
    docs = load_all()

    async def fn(c):
        return await c.call_tool("list_rules", {}), await c.call_tool("list_rules", {"detail": "full"}), await c.call_tool("list_rules", {"tool": "nan"})

    brief, full, nan_only = _go(server, fn)
    # The catalog grows with every rule: the brief listing's budget is per rule (an id and a one-line
    # title, as text and as the structured map), not a fixed total.
    assert _size(brief) < 200 * len(docs), f"list_rules is {_size(brief)} bytes for {len(docs)} rules"
    rules = brief.structured_content["rules"]
    assert set(rules) == set(docs) and all(rules[i] == docs[i].title for i in docs)
    assert brief.content[0].text.splitlines()[0].count(": ") >= 1  # one line per rule as text, not a JSON copy
    details = {d["id"]: d for d in full.structured_content["details"]}
    assert set(details) == set(docs)
    some = next(iter(docs.values()))
    assert (details[some.id]["tool"], details[some.id]["category"], details[some.id]["severity"]) == (some.tool, some.category, some.severity)
    assert set(nan_only.structured_content["rules"]) == {i for i, d in docs.items() if d.tool == "nan"}
