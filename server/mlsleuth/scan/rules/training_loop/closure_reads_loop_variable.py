"""The ``closure-reads-loop-variable`` rule: a hook or callback made in a loop reads the loop's variable late."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

# calls that keep the function they are given and run it later (after the loop has moved on)
_KEEPS_CALLBACK = {
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook", "register_hook", "register_post_accumulate_grad_hook",
    "register_step_pre_hook", "register_step_post_hook", "register_state_dict_pre_hook",
    "register_load_state_dict_post_hook", "register_module_forward_hook", "register_module_forward_pre_hook",
    "add_done_callback", "call_later", "call_soon", "Thread", "Timer", "Process", "LambdaLR", "MultiplicativeLR",
}
_CONTAINER_ADDS = {"append", "insert", "add", "setdefault"}


def _bound_each_iteration(loop: ast.For | ast.AsyncFor) -> set[str]:
    """Names the loop rebinds on every iteration: its targets and plain assignments in its body."""
    names = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for stmt in loop.body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.For) and node is not loop:
                names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return names


def _free_reads(func: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.Name]:
    """Names the closure reads but does not bind itself (its parameters, defaults included, are its own)."""
    args = func.args
    own = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    own |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    body = [func.body] if isinstance(func, ast.Lambda) else func.body
    assigned = set()
    reads: dict[str, ast.Name] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    assigned.add(node.id)
                elif node.id not in reads:
                    reads[node.id] = node
            elif isinstance(node, ast.comprehension):
                assigned |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return {k: v for k, v in reads.items() if k not in own and k not in assigned}


def _kept_for_later(ctx: FileContext, func: ast.AST, loop: ast.AST) -> str | None:
    """How the closure outlives the iteration that made it: the call that keeps it, or None."""
    target: ast.AST = func
    if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        uses = [n for n in ast.walk(loop) if isinstance(n, ast.Name) and n.id == func.name and isinstance(n.ctx, ast.Load)]
        for use in uses:
            how = _kept_for_later(ctx, use, loop)
            if how:
                return how
        return None
    parent = ctx.parent(target)
    while isinstance(parent, (ast.List, ast.Tuple, ast.keyword, ast.Starred)):
        target, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Call) and target is not parent.func:
        name = call_method(parent) or (parent.func.id if isinstance(parent.func, ast.Name) else None)
        if name in _KEEPS_CALLBACK or name in _CONTAINER_ADDS:
            return f"`{name}(...)`"
        return None
    if isinstance(parent, ast.Assign) and any(isinstance(t, ast.Subscript) for t in parent.targets):
        return f"`{ctx.segment(parent.targets[0])} = ...`"
    return None


@register_rule
class ClosureReadsLoopVariable(Rule):
    """A hook made in a loop reads the loop variable late: its last value.

    What it finds: a `lambda` or nested `def` made inside a `for` loop that reads a name the loop rebinds on every
    iteration (`name`, `layer`, `i`), and that is kept to run later: registered as a forward/backward/tensor hook,
    given to `LambdaLR`, a thread or a timer, appended to a list or stored in a dict.
    Why it matters: Python closures look a name up when they run, not when they are made. By then the loop has
    finished, so every hook writes its activations under the last layer's name, every LR lambda uses the last
    group's factor, every callback acts on the last item. Nothing fails; the results are silently merged or wrong.
    How to confirm: after the loop, call two of the kept functions (or run one forward and print the keys the
    hooks wrote): they all use the same, last value.
    What to do instead: bind the value when the closure is made: a default argument (`lambda m, i, o, name=name:
    ...`), `functools.partial(fn, name)`, or a small factory function that takes the value and returns the hook.
    """

    id = "closure-reads-loop-variable"
    category = "training-loop"
    severity = "warning"
    triggers = ("lambda", "def")

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        for loop in ctx.nodes_of(ast.For, ast.AsyncFor):
            rebound = _bound_each_iteration(loop)
            if not rebound:
                continue
            for stmt in loop.body:
                for func in ast.walk(stmt):
                    if not isinstance(func, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)) or id(func) in seen:
                        continue
                    late = [n for name, n in _free_reads(func).items() if name in rebound]
                    if not late:
                        continue
                    how = _kept_for_later(ctx, func, loop)
                    if how is None:
                        continue
                    seen.add(id(func))
                    names = ", ".join(f"`{n.id}`" for n in late[:3])
                    yield self.finding(
                        ctx, func,
                        f"this function is kept by {how} and reads {names}, which the loop rebinds: when it runs, "
                        "after the loop, it sees the last value, not this iteration's",
                        observation=(ctx.segment(func) or "")[:160],
                    )
