"""mlsleuth: clues for debugging model training.

The package is a plain library; ``cli`` and ``mcp_server`` are thin layers on
top. Importing it must stay cheap: nothing here imports torch, numpy or the
MCP SDK.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
