"""The ``target-network-aliases-online`` rule: a target, EMA or teacher network that is the trained network itself."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

# Name parts of a copy that must lag behind, or stay fixed apart from, the trained network.
_COPY_WORDS = frozenset({"target", "ema", "teacher", "momentum", "shadow", "averaged", "swa", "polyak", "old"})
_NET_WORDS = frozenset({"net", "network", "model", "encoder", "policy", "critic", "actor", "q", "qnet", "module", "backbone"})


def _copy_name(name: str) -> bool:
    parts = set(vo.words(name.rsplit(".", 1)[-1]))
    return bool(parts & _COPY_WORDS) and bool(parts & _NET_WORDS)


def _trained(ctx: FileContext, name: str) -> bool:
    """``name``'s parameters go to an optimizer in this file."""
    return f"{name}.parameters()" in ctx.source and any(
        f"{name}.parameters()" in ctx.segment(c, 400) for c in ctx.calls() if (vo.normalize(ctx.qualname(c)) or "").startswith("torch.optim.")
    )


@register_rule
class TargetNetworkAliasesOnline(Rule):
    """A target, EMA or teacher network that is the trained network itself.

    What it finds: `self.target_net = self.policy_net`, `ema_model = model`, `teacher = student` and the
    like: a name that says it holds a lagging or frozen copy (target, EMA, teacher, momentum, shadow),
    bound to the very network whose parameters the optimizer trains, instead of a copy
    (`copy.deepcopy`, a second constructor call).
    Why it matters: both names point at one module. The "target" moves with every update, so a DQN
    bootstraps from the network it is fitting (the instability target networks exist to prevent), an
    EMA average is just the current weights, a teacher distils into itself, and a later
    `target.load_state_dict(online.state_dict())` is a no-op. Training runs, usually worse, with no error.
    How to confirm: `print(target_net is policy_net)` prints True; after one optimizer step the target's
    weights have changed.
    What to do instead: `self.target_net = copy.deepcopy(self.policy_net)` (then
    `requires_grad_(False)`), or build a second instance and load the online weights into it.
    """

    id = "target-network-aliases-online"
    category = "training-loop"
    severity = "error"
    triggers = ("target", "ema", "teacher", "momentum", "shadow", "swa", "polyak")

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Assign):
            if len(node.targets) != 1 or not isinstance(node.value, (ast.Name, ast.Attribute)):  # type: ignore[attr-defined]
                continue
            target, source = dotted(node.targets[0]), dotted(node.value)  # type: ignore[attr-defined]
            if not target or not source or not _copy_name(target) or _copy_name(source):
                continue
            if not _trained(ctx, source):
                continue
            yield self.finding(
                ctx,
                node,
                f"`{target}` is bound to `{source}` itself, not a copy: the {target.rsplit('.', 1)[-1]} moves with every "
                f"optimizer step on {source}, so it is no lagging target at all",
                next_test=f"print({target} is {source}) prints True; a copy needs copy.deepcopy({source}).",
            )
