"""The ``ema-decay-inverted`` rule: a moving-average update gives the decay to the new value instead of the average."""

from __future__ import annotations

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.moving_averages import average_updates, shares
from mlsleuth.scan.registry import Rule, register_rule

# The new value gets at least this share per update, the average at most 1 - it: the "average" follows the
# newest value within a step or two, which no moving average means to do.
ONLINE_SHARE = 0.9


@register_rule
class EmaDecayInverted(Rule):
    """A moving-average update puts the decay on the new value.

    What it finds: an update of a running value, `avg <- keep * avg + take * new` with `keep + take = 1`, in any
    of its spellings — `avg.mul_(k).add_(new, alpha=t)`, `avg.lerp_(new, t)`, `torch._foreach_lerp_`,
    `avg.copy_(k * avg + t * new)`, `p.data = ...`, `self.avg = ...`, `shadow[name] = ...`, a name a loop carries,
    `avg.sub_(t * (avg - new))` — where the new value's share `t` resolves (through constants, defaults,
    `self.decay`, what callers pass, a `get_decay()` helper and the ceiling of a `min(decay, ramp)` warm-up) to 0.9
    or more and the average keeps 0.1 or less: an EMA/teacher/momentum decay of 0.999 written on the wrong term, or
    a soft-update rate `tau = 0.005` written on the average. Hard copies (0 or 1) and unresolved factors stay silent.
    Why it matters: a moving average is meant to change slowly (`ema = d * ema + (1 - d) * new` with d close to
    1, a Polyak target `target = (1 - tau) * target + tau * online` with tau small). With the shares swapped the
    "average" is the newest value one step late: EMA weights, a momentum/teacher encoder (MoCo, BYOL, DINO, mean
    teacher), a target network, an optimizer moment or a running normaliser brings none of the smoothing it is
    there for, and EMA scores equal the raw ones. Nothing errors.
    How to confirm: after an update, `(avg - new).abs().max()` is tiny next to one step's change of `new`, every step.
    What to do instead: keep the large factor on the average: `avg.mul_(d).add_(new, alpha=1 - d)`,
    `avg.lerp_(new, 1 - d)`, `target.lerp_(online, tau)`, or `torch.optim.swa_utils.AveragedModel(model,
    multi_avg_fn=get_ema_multi_avg_fn(d))`.
    """

    id = "ema-decay-inverted"
    category = "training-loop"
    severity = "warning"
    triggers = ("mul_(", "lerp_(", "copy_(", ".data", "sub_(", "add_(", "1 -", "1-", "1.0 -", "1. -", "1.0-", ".9")

    def check(self, ctx: FileContext):
        for update in average_updates(ctx):
            found = shares(ctx, update)
            if found is None:
                continue
            kept, taken = found
            if min(taken) >= ONLINE_SHARE and max(kept) <= 1.0 - ONLINE_SHARE + 1e-9:
                avg, new = ctx.segment(update.average, 40), ctx.segment(update.new, 40)
                yield self.finding(
                    ctx,
                    update.anchor,
                    f"this update keeps {_fmt(kept)} of the average `{avg}` and takes {_fmt(taken)} of the new"
                    f" value `{new}` each step: the decay sits on the wrong term, so the average just follows"
                    " the newest value",
                    observation=ctx.segment(update.anchor, 120),
                    next_test=f"after an update, print `({avg} - {new}).abs().max()`: it is about one step's change",
                )


def _fmt(values: frozenset[float]) -> str:
    return "/".join(f"{v:.6g}" for v in sorted(values))
