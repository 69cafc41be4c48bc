"""The ``rl-bootstrap-ignores-done`` rule: a TD target bootstraps through terminal transitions."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.rl_targets import (
    bootstrap_targets,
    is_mask,
    mentions_done,
    names_in,
)
from mlsleuth.scan.registry import Rule, register_rule

EPISODE_END = re.compile(r"done|terminal|terminat", re.IGNORECASE)


@register_rule
class RlBootstrapIgnoresDone(Rule):
    """A TD target bootstraps through terminal transitions: `r + gamma * next_value` with no done mask.

    What it finds: a bootstrap target `reward + gamma * next_value` (a name with gamma/discount in it, or a
    constant in [0.8, 1), times a next-state value such as `target_net(next_obs).max(1)`) with no factor that
    zeroes finished episodes (`1 - dones`, `~terminated`, `not_done`, `nonterminal`, `logical_not`), in a
    function (or module) where an episode-end flag (done / terminated / terminal) exists. Targets written
    under `if done:` / `else:`, or whose next value was masked where it was built (`next_q[dones] = 0`,
    `next_state_values[non_final_mask] = ...`), are left alone.
    Why it matters: the value of the state after a terminal step is not part of the return: the episode
    is over. Bootstrapping through it adds `gamma * Q(s')` of whatever state the buffer holds (often the next
    episode's first state), so the values of states just before failure are overestimated, the agent cannot
    learn that falling is bad, and with gamma near 1 the values drift upwards without bound. Nothing fails.
    How to confirm: print the target for a batch's terminal transitions (`target[dones.bool()]`): it should
    equal the reward alone.
    What to do instead: multiply the bootstrap term by `(1 - terminated)`:
    `r + gamma * next_q * (1 - terminated)`, with `terminated` (not `terminated or truncated`) stored per
    transition.
    """

    id = "rl-bootstrap-ignores-done"
    category = "loss"
    severity = "error"
    triggers = ("gamma", "discount", "GAMMA", "Gamma")
    requires = (("done", "terminal", "terminat", "Done"),)

    def check(self, ctx: FileContext):
        scopes: list[ast.AST] = [*ctx.functions, ctx.tree]
        seen: set[int] = set()
        for scope in scopes:
            if not self._has_done_flag(ctx, scope):
                continue
            for target in bootstrap_targets(scope):
                if id(target.node) in seen:
                    continue
                seen.add(id(target.node))
                if scope is ctx.tree and ctx.enclosing_function(target.node) is not None:
                    continue  # judged with its own function
                if any(is_mask(f) for f in target.factors) or is_mask(target.reward):
                    continue
                if self._under_done_test(ctx, target.node) or self._masked_where_built(ctx, scope, target):
                    continue
                yield self.finding(
                    ctx,
                    target.node,
                    "the TD target bootstraps through terminal transitions: reward + gamma * next value has no (1 - done) factor, "
                    "so finished episodes still add the value of a state that does not follow them",
                    next_test="print(target[dones.bool()] - rewards[dones.bool()]) for one batch: non-zero where it must be 0",
                    fix="multiply the bootstrap term by (1 - terminated): r + gamma * next_q * (1 - terminated)",
                )

    @staticmethod
    def _has_done_flag(ctx: FileContext, scope: ast.AST) -> bool:
        nodes = ctx.walk_scope(scope) if scope is not ctx.tree else ast.walk(scope)
        for node in nodes:
            name = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) else None
            if name is not None and EPISODE_END.search(name):
                return True
        return False

    @staticmethod
    def _under_done_test(ctx: FileContext, node: ast.AST) -> bool:
        for anc in ctx.ancestors(node):
            if isinstance(anc, (ast.If, ast.IfExp, ast.While)) and mentions_done(anc.test):
                return True
            if isinstance(anc, ast.Call) and any(n in ("where",) for n in names_in(anc.func)) and anc.args and mentions_done(anc.args[0]):
                return True
        return False

    @staticmethod
    def _masked_where_built(ctx: FileContext, scope: ast.AST, target) -> bool:
        """A next-value name in the product assigned (or item-assigned) from or under a done/mask expression."""
        wanted = {f.id for f in target.factors if isinstance(f, ast.Name)}
        wanted |= {n.id for f in target.factors for n in ast.walk(f) if isinstance(n, ast.Name)}
        if not wanted:
            return False
        for node in ast.walk(scope):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    base = t.value if isinstance(t, ast.Subscript) else t
                    if isinstance(base, ast.Name) and base.id in wanted:
                        if isinstance(t, ast.Subscript) and mentions_done(t.slice):
                            return True
                        if node.value is not None and mentions_done(node.value):
                            return True
                        if any(isinstance(a, ast.If) and mentions_done(a.test) for a in ctx.ancestors(node)):
                            return True
        return False
