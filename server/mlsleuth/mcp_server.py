"""The mlsleuth MCP server: a thin layer that registers tools, resources and prompts.

All behaviour lives in :mod:`mlsleuth.serving` and the capability libraries;
this module only assembles them. ``mlsleuth serve`` runs the result over stdio
(or streamable HTTP); tests connect to :func:`build_server`'s return value
in-process.
"""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer

from mlsleuth import __version__
from mlsleuth.serving import prompts, resources
from mlsleuth.serving.arguments import ToolCollector
from mlsleuth.serving.tools import ServeEnv, register_all

INSTRUCTIONS = """\
mlsleuth finds silent bugs in model-training code and helps debug training
clue-first: collect clues with the tools before changing code. Start with
`triage` (scan plus a few traced steps, merged and ranked for the symptom) or
`scan` (static, runs nothing); use `explain_rule` on any finding you do not
understand; the tools that run the user's code (tracing a few training steps, the
diagnostic battery, locating the first NaN) come next. The handbook resource mlsleuth://skill
describes the method. Paths are relative to the served project root, or absolute inside it.
"""


def build_server(root: str | Path = ".", **settings: float | None) -> MCPServer:
    """An MCPServer whose tools read only files under ``root``.

    ``settings`` are :class:`~mlsleuth.serving.tools.ServeEnv` fields
    (``scan_timeout_s``, ``run_timeout_s``, ``char_budget``, ``child_memory_mb``).
    """
    resolved = Path(root).expanduser().resolve()
    if not resolved.is_dir():
        raise NotADirectoryError(f"the root {root} is not a directory")
    env = ServeEnv(root=resolved, **settings)  # type: ignore[arg-type]
    # Tools are built first (strict arguments: see mlsleuth.serving.arguments) and handed to the server.
    tools = ToolCollector()
    register_all(tools, env)
    server: MCPServer = MCPServer(
        name="mlsleuth",
        title="mlsleuth: clues for debugging model training",
        instructions=INSTRUCTIONS,
        version=__version__,
        website_url="https://github.com/mlsleuth/mlsleuth",
        tools=tools.tools,
    )
    resources.register(server)
    prompts.register(server)
    return server
