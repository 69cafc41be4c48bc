"""Build a :class:`mlsleuth.config.Selection` for the runtime tools, validated against the catalog.

Library code: an unknown rule id or category raises :class:`mlsleuth.config.ConfigError`;
the CLI (:func:`mlsleuth.commands.common.selection_from_args`) turns it into a usage error.
"""

from __future__ import annotations

from collections.abc import Sequence


def build_selection(select: Sequence[str] | None, ignore: Sequence[str] | None, min_severity: str | None,
                    tools: Sequence[str] = ()):
    """A validated Selection. ``tools``: the tools whose findings it will filter (informational)."""
    from mlsleuth.catalog import load_all
    from mlsleuth.config import Selection

    selection = Selection(select=tuple(select or ()), ignore=tuple(ignore or ()), min_severity=min_severity or "info")
    selection.validate(set(load_all()))
    return selection
