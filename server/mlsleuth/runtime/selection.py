"""Build a :class:`mlsleuth.config.Selection` from the shared CLI options, validated against the catalog."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def selection_from_args(args: argparse.Namespace, tools: Sequence[str]):
    from mlsleuth.catalog import load_all
    from mlsleuth.cli import UsageError
    from mlsleuth.commands.common import split_ids
    from mlsleuth.config import ConfigError, Selection

    selection = Selection(select=tuple(split_ids(args.select) or ()), ignore=tuple(split_ids(args.ignore) or ()),
                          min_severity=args.min_severity or "info")
    try:
        selection.validate(set(load_all()))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return selection
