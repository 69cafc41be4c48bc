"""Subcommands of the ``mlsleuth`` CLI: one module each, plus shared option helpers."""
