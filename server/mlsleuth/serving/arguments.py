"""Strict tool arguments: an argument the tool does not take is refused, by name.

The SDK builds each tool's argument model from its signature and, like
pydantic by default, drops names it does not know: an agent that sends
``path`` instead of ``paths`` gets a scan of the whole root and no hint that
its argument was ignored. Here every tool is built as a :class:`StrictTool`:
its input schema says ``additionalProperties: false`` (so clients can check
before sending), its argument model forbids extra fields, and a call with an
unknown name is refused before anything runs, with a message naming the
unknown argument, the closest valid one and every argument the tool takes.

Tool modules keep their ``register(server, env)`` contract and decorate with
``@server.tool(...)``; :class:`ToolCollector` plays the server during
registration and hands the built tools to the ``MCPServer`` constructor.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import ConfigDict


def unknown_argument_message(tool: str, unknown: list[str], valid: list[str]) -> str:
    """What an agent needs to fix a call that named arguments the tool does not take."""
    parts = []
    for name in unknown:
        close = difflib.get_close_matches(name.replace("-", "_").lower(), valid, n=1, cutoff=0.6)
        parts.append(f"unknown argument {name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    takes = ", ".join(valid) if valid else "no arguments"
    return f"{'; '.join(parts)}. {tool} takes: {takes}. Nothing was run; call it again with the right names"


class StrictTool(Tool):
    """A tool that refuses arguments outside its input schema instead of ignoring them."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        valid = list(self.parameters.get("properties", {}))
        unknown = [name for name in arguments if name not in valid]
        if unknown:
            raise ToolError(f"Error executing tool {self.name}: {unknown_argument_message(self.name, unknown, valid)}")
        return await super().run(arguments, context, convert_result=convert_result)


def make_strict(tool: Tool) -> None:
    """Forbid extra fields in ``tool``'s argument model and say so in its input schema (in place)."""
    meta = tool.fn_metadata
    base = meta.arg_model
    meta.arg_model = type(base.__name__, (base,), {"model_config": ConfigDict(**{**base.model_config, "extra": "forbid"}), "__module__": base.__module__})
    tool.parameters = {**_without_titles(tool.parameters), "additionalProperties": False}


def _without_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema without pydantic's generated per-property ``title`` (the property name, capitalised)."""
    properties = {name: {k: v for k, v in prop.items() if k != "title"} for name, prop in schema.get("properties", {}).items()}
    return {**schema, "properties": properties}


def compact_report_output(tool: Tool) -> None:
    """List the compact report schema for a tool that returns a Report (see :mod:`.schemas`); in place."""
    from mlsleuth.report import Report
    from mlsleuth.serving.schemas import COMPACT_REPORT_SCHEMA

    if tool.fn_metadata.output_model is Report:
        tool.fn_metadata.output_schema = COMPACT_REPORT_SCHEMA


class ToolCollector:
    """Stands in for the server while tool modules register: builds each tool as a StrictTool."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []

    def tool(self, name: str | None = None, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            built = StrictTool.from_function(fn, name=name, **options)
            if any(t.name == built.name for t in self.tools):
                raise ValueError(f"two tools are named {built.name!r}")
            make_strict(built)
            compact_report_output(built)
            self.tools.append(built)
            return fn

        return decorate
