"""The ``rl-truncation-as-terminal`` rule: a time-limit truncation stored or masked as a terminal transition."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.rl_targets import (
    TERMINATED_WORD,
    TRUNCATED_WORD,
    bootstrap_targets,
    names_in,
    product_factors,
)
from mlsleuth.scan.registry import Rule, register_rule

STORE_METHODS = {"push", "add", "append", "store", "insert", "add_transition", "store_transition", "remember", "add_experience", "put"}
BUFFER_WORDS = ("buffer", "memory", "replay", "rb", "storage", "experience", "transitions")


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


@register_rule
class RlTruncationAsTerminal(Rule):
    """A time-limit truncation stored or masked in a TD target as if the episode had ended.

    What it finds: a flag built as `terminated or truncated` (also `|`, `np.logical_or`, `torch.logical_or`)
    that is then stored with the transition in a replay buffer (`buffer.add(...)`, `memory.push(...)`,
    `replay.append((s, a, r, s2, done))`) or used as the mask of a bootstrap target
    `r + gamma * next_value * (1 - done)`. Using it to end the episode loop (`if done: obs = env.reset()`)
    is correct and left alone, as is on-policy rollout storage.
    Why it matters: gymnasium separates `terminated` (the task ended: no future value) from `truncated` (a
    time limit cut the episode: the next state still has a value). Treating a truncation as terminal
    teaches the value function that the states near the time limit are worth only their last reward: a
    systematic underestimate that grows with gamma, and an agent that behaves differently near the limit.
    How to confirm: count the stored transitions with done=1 whose `truncated` flag was set (for CartPole-v1,
    every episode that reaches 500 steps).
    What to do instead: store `terminated` alone for the bootstrap mask (`r + gamma * next_q * (1 - terminated)`)
    and keep `terminated or truncated` only to reset the environment; keep the real next observation of a
    truncated step (gymnasium's `final_obs` in vector envs).
    """

    id = "rl-truncation-as-terminal"
    category = "loss"
    severity = "warning"
    triggers = ("truncat",)
    requires = (("terminat",),)

    def check(self, ctx: FileContext):
        for scope in [*ctx.functions, ctx.tree]:
            for name, built in self._combined_flags(ctx, scope).items():
                use = self._stored(ctx, scope, name) or self._masks_target(scope, name)
                if use is None:
                    continue
                yield self.finding(
                    ctx,
                    built,
                    f"`{name}` merges terminated and truncated and is then {use}: time-limit truncations are treated as "
                    "terminal, so the states before the limit lose their bootstrap value",
                    next_test="count the stored transitions with done=1 whose truncated flag was set (every CartPole-v1 episode that reaches 500 steps)",
                    fix="store `terminated` for the TD mask (r + gamma * next_q * (1 - terminated)); use `terminated or truncated` only to reset the environment",
                )

    @staticmethod
    def _is_merge(value: ast.AST) -> bool:
        operands: list[ast.AST] = []
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            operands = list(value.values)
        elif isinstance(value, ast.BinOp) and isinstance(value.op, (ast.BitOr, ast.Add)):
            operands = [value.left, value.right]
        elif isinstance(value, ast.Call) and _callee(value) in ("logical_or", "maximum", "bitwise_or"):
            operands = list(value.args)
        if len(operands) < 2:
            return False
        words = [" ".join(names_in(o)) for o in operands]
        return any(TERMINATED_WORD.search(w) for w in words) and any(TRUNCATED_WORD.search(w) for w in words)

    def _combined_flags(self, ctx: FileContext, scope: ast.AST) -> dict[str, ast.AST]:
        out: dict[str, ast.AST] = {}
        nodes = ctx.walk_scope(scope) if scope is not ctx.tree else (n for n in ast.walk(scope) if ctx.enclosing_function(n) is None)
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and self._is_merge(node.value):
                out.setdefault(node.targets[0].id, node)
        return out

    @staticmethod
    def _stored(ctx: FileContext, scope: ast.AST, name: str) -> str | None:
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr not in STORE_METHODS:
                continue
            owner = " ".join(names_in(node.func.value)).lower()
            if not any(w in owner for w in BUFFER_WORDS):
                continue
            args = list(node.args) + [k.value for k in node.keywords]
            flat = [e for a in args for e in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
            # a transition: several fields, given directly, as a tuple, or through a constructor (Transition(s, a, r, s2, done))
            width = max([len(flat)] + [len(c.args) + len(c.keywords) for c in flat if isinstance(c, ast.Call)])
            if width >= 3 and any(isinstance(n, ast.Name) and n.id == name for a in args for n in ast.walk(a)):
                return f"stored in the replay buffer ({ctx.segment(node.func, 60)})"
        return None

    @staticmethod
    def _masks_target(scope: ast.AST, name: str) -> str | None:
        for target in bootstrap_targets(scope):
            for f in product_factors(target.discounted):
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(f)):
                    return "the mask of the bootstrap target"
        return None
