"""``scan/analysis/moving_averages.py``: running-value updates and the shares each side gets."""

from __future__ import annotations

import textwrap

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.moving_averages import average_updates, shares


def _found(source: str) -> list[tuple[int, str, str, tuple | None]]:
    ctx = FileContext.from_source(textwrap.dedent(source).lstrip("\n"))
    out = []
    for u in average_updates(ctx):
        got = shares(ctx, u)
        out.append((u.anchor.lineno, ctx.segment(u.average), ctx.segment(u.new),
                    None if got is None else (sorted(round(v, 6) for v in got[0]), sorted(round(v, 6) for v in got[1]))))
    return out


def test_spellings_and_shares():
    got = _found("""
        import torch

        def f(ema, model, params, d=0.99):
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(d).add_(p, alpha=1 - d)
                e.lerp_(p, 1 - d)
                e.sub_((1 - d) * (e - p))
                e.add_((1 - d) * (p - e))
                e.data = d * e.data + (1 - d) * p.data
            torch._foreach_lerp_(ema, params, 1 - d)
    """)
    assert sorted(g[0] for g in got) == [5, 6, 7, 8, 9, 10]
    assert all(g[3] == ([0.99], [0.01]) for g in got)
    assert {g[1:3] for g in got} == {("e", "p"), ("e.data", "p.data"), ("ema", "params")}


def test_warmup_helper_ceiling_and_degenerate_values():
    got = _found("""
        class E:
            def __init__(self, decay=0.999):
                self.decay = decay

            def get_decay(self, step):
                if step < 10:
                    return 0.0
                return min(self.decay, (1 + step) / (10 + step))

            def step(self, shadow, params, step):
                d = self.get_decay(step)
                for s, p in zip(shadow, params):
                    s.copy_(d * s + (1 - d) * p)
    """)
    assert got == [(13, "s", "p", ([0.999], [0.001]))]


def test_one_off_blends_are_no_running_value():
    got = _found("""
        def mixup(x, x2, lam):
            x = lam * x + (1 - lam) * x2
            return x

        def loop(xs):
            for x in xs:
                y = 0.5 * x + 0.5 * x
    """)
    assert got == []
