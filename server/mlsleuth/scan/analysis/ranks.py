"""Is a condition about the process's rank? (``if rank == 0:``, ``if accelerator.is_main_process:``)."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import dotted

RANK_WORDS = re.compile(r"rank|is_main|main_process|is_master|master_process|global_zero|is_primary|process_zero", re.IGNORECASE)
# names frameworks give a "this process writes the checkpoint" flag (transformers' `args.should_save`)
_SAVE_GATES = re.compile(r"should_save", re.IGNORECASE)


def mentions_rank(node: ast.AST, *, save_gates: bool = False) -> bool:
    """A name or attribute under ``node`` speaks of the rank (with ``save_gates``: or of which process saves)."""
    for sub in ast.walk(node):
        text = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
        if text and (RANK_WORDS.search(text) or save_gates and _SAVE_GATES.search(text)):
            return True
    return False
