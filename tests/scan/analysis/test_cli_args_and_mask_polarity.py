"""``analysis/cli_args.py`` (argparse defaults) and ``analysis/mask_polarity.py`` (which way round a mask is)."""

from __future__ import annotations

import ast
import textwrap

from mlsleuth.scan.analysis import mask_polarity as mp
from mlsleuth.scan.analysis.cli_args import argparse_default
from mlsleuth.scan.analysis.context import FileContext


def _ctx(src: str) -> FileContext:
    return FileContext.from_source(textwrap.dedent(src))


def _last_call_arg(ctx: FileContext, name: str) -> ast.AST:
    return [c for c in ctx.calls_named(name)][-1].args[0]


def test_argparse_default_of_an_option_read_from_parsed_args():
    ctx = _ctx("""
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--arch-name", default="vit_b")
        p.add_argument("-n", "--num", type=int, default=3)
        p.add_argument("--twice", default=1)
        p.add_argument("--twice", default=2)
        args = p.parse_args()
        use(args.arch_name)
        use(args.num)
        use(args.twice)
        use(other.arch_name)
        """)
    uses = [c.args[0] for c in ctx.calls_named("use")]
    assert [ast.literal_eval(d) if d is not None else None for d in (argparse_default(ctx, u) for u in uses)] == ["vit_b", 3, None, None]


def test_mask_polarity_from_construction_and_inversions():
    ctx = _ctx("""
        import torch
        def f(ids, pad_id, lengths, batch, scores):
            keep = ids != pad_id
            block = ids.eq(pad_id)
            by_len = torch.arange(ids.size(1))[None] < lengths[:, None]
            hf = batch["attention_mask"]
            use(keep)
            use(~keep)
            use(block.unsqueeze(1))
            use(by_len.logical_not())
            use(hf == 0)
            use(1 - hf)
            use(scores > 0.5)
        """)
    uses = [c.args[0] for c in ctx.calls_named("use")]
    assert [mp.polarity(ctx, u) for u in uses] == [mp.KEEP, mp.BLOCK, mp.BLOCK, mp.BLOCK, mp.BLOCK, mp.BLOCK, None]
