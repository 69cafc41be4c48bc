"""How much of an agent's context the MCP server's listings take.

Measured in-process through the SDK's own client, as the bytes of the JSON a
client receives (the result object serialised by alias, without null fields):

* ``tools/list``: every tool's name, description, input and output schema;
* ``list_rules``: the default call (no arguments), and ``detail: "full"`` when
  the server has that parameter;
* the largest single tool entry and how many bytes of ``tools/list`` are
  output schemas.

    python benchmarks/bench_agent_sizes.py          # a table
    python benchmarks/bench_agent_sizes.py --json   # the numbers as JSON

Nothing runs user code; the served root is an empty temporary folder.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import anyio


def _size(model) -> int:
    return len(model.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))


async def _measure(root: Path) -> dict:
    from mcp import Client
    from mlsleuth.mcp_server import build_server

    server = build_server(root)
    async with Client(server) as client:
        listed = await client.list_tools()
        tools = listed.tools
        rules_default = await client.call_tool("list_rules", {})
        takes_detail = "detail" in next(t for t in tools if t.name == "list_rules").input_schema.get("properties", {})
        rules_full = await client.call_tool("list_rules", {"detail": "full"}) if takes_detail else None
    out_schemas = sum(len(json.dumps(t.output_schema, separators=(",", ":"))) for t in tools if t.output_schema)
    per_tool = {t.name: _size(t) for t in tools}
    return {
        "tools_list_bytes": _size(listed),
        "tools": len(tools),
        "output_schema_bytes": out_schemas,
        "largest_tool": max(per_tool.items(), key=lambda kv: kv[1]),
        "per_tool_bytes": per_tool,
        "list_rules_default_bytes": _size(rules_default),
        "list_rules_full_bytes": _size(rules_full) if rules_full is not None else None,
        "rules_listed": (rules_default.structured_content or {}).get("count"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = anyio.run(_measure, Path(tmp))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"tools/list: {result['tools_list_bytes'] / 1000:.1f} KB for {result['tools']} tools "
          f"({result['output_schema_bytes'] / 1000:.1f} KB of it output schemas); "
          f"largest tool: {result['largest_tool'][0]} {result['largest_tool'][1] / 1000:.1f} KB")
    for name, size in sorted(result["per_tool_bytes"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:<16} {size / 1000:6.1f} KB")
    full = result["list_rules_full_bytes"]
    print(f"list_rules (default): {result['list_rules_default_bytes'] / 1000:.1f} KB for {result['rules_listed']} rules"
          + (f"; detail=full: {full / 1000:.1f} KB" if full is not None else ""))


if __name__ == "__main__":
    main()
