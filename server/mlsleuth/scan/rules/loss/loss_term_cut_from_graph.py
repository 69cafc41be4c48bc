"""The ``loss-term-cut-from-graph`` rule: a term of the training loss has no autograd path left, so it trains nothing."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import gradient_paths, lightning, value_origins
from mlsleuth.scan.analysis.context import FileContext, same_tree
from mlsleuth.scan.analysis.training_step_model import dedupe, loop_model, step_loops
from mlsleuth.scan.registry import Rule, register_rule


def backpropagated_losses(ctx: FileContext):
    """(loss expression, where it is backpropagated, the backward call) for every backward of a loop that steps an optimizer, and every
    loss a Lightning ``training_step`` returns to the Trainer (automatic optimization)."""
    model = loop_model(ctx)
    for trace in model.traces:
        for loop in step_loops(trace):
            for event in trace.in_loop(loop):
                if event.kind == "backward" and event.loss is not None:
                    yield event.loss, event.where(), event.node
    if "training_step" in ctx.source:
        for _cls, step in lightning.training_steps(ctx):
            for ret in value_origins.returns(step):
                loss = gradient_paths.returned_loss(ret)
                if loss is not None:
                    yield loss, f"line {ret.lineno} (returned to Lightning)", ret


def _cancelled(ctx: FileContext, cut: ast.AST | None, others: list[ast.AST]) -> bool:
    """``a - a.detach()``, ``x + (q - x).detach()``: the detached value also enters the loss live (a value-zero or
    straight-through trick whose gradient is deliberate)."""
    if not (isinstance(cut, ast.Call) and isinstance(cut.func, ast.Attribute)):
        return False
    inner = cut.func.value
    candidates = [inner]
    if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub):
        candidates += [inner.left, inner.right]  # ``x + (q - x).detach()``
    candidates += [v for v in (ctx.value_of(n) for n in candidates if isinstance(n, ast.Name)) if v is not None]
    for other in others:
        for node in ast.walk(other):
            if any(same_tree(node, c) for c in candidates):
                return True
    return False


@register_rule
class LossTermCutFromGraph(Rule):
    """A term of the training loss has no autograd path left, so it trains nothing.

    What it finds: a backpropagated loss written as a sum in which one term is computed only from
    values cut from the graph: `.detach()`, `.data`, `.item()` / `float()` / `.tolist()` /
    `.numpy()`, NumPy or `math` arithmetic, `torch.tensor(x)` copies, values computed under
    `torch.no_grad()`. The term is followed through local names, `+=`, a dict of losses summed with
    `sum(losses.values())`, `self` attributes and helper functions of this file or of another module
    of the project, for example `loss = ce + lam * l2.item()` or `reg = penalty(w).detach()`.
    Why it matters: the term carries no autograd history, so it adds to the printed loss but
    contributes zero gradient: the regulariser, auxiliary loss or penalty it stands for has no
    effect on training, while the logged loss suggests it is being optimised.
    How to confirm: run one step with and one step without that term (same seed and batch) and
    compare the parameter gradients: they are identical.
    What to do instead: keep the term as a tensor computed from the model's outputs or parameters
    (`loss = ce + lam * l2`); detach or call `.item()` only on copies used for logging.
    """

    id = "loss-term-cut-from-graph"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("backward", "training_step")

    def check(self, ctx):
        found = []
        for loss, where, node in backpropagated_losses(ctx):
            terms = gradient_paths.loss_terms(ctx, loss, gradient_paths.Reader(ctx, around=node))
            if len(terms) < 2:
                continue
            flows = [t.flow() for t in terms]
            if not any(f.open for f in flows):
                continue  # the whole loss is cut: backward fails loudly (or another rule's re-wrap)
            for i, (term, f) in enumerate(zip(terms, flows)):
                if not f.severed:
                    continue
                others = [t.expr for j, t in enumerate(terms) if j != i and flows[j].open]
                if _cancelled(term.ctx, f.where, others):
                    continue
                cut = f.where
                there, site = gradient_paths.cut_site(term.ctx, f, term.stmt)
                cut_text = f"`{there.segment(cut, 50)}`" if isinstance(cut, ast.expr) else "the torch.no_grad() block around it"
                term_file = "" if term.ctx is there else f" of {term.ctx.display_path}"
                loss_file = "" if there is ctx else f" of {ctx.display_path}"
                found.append(
                    self.finding(
                        there,
                        site,
                        f"{cut_text} cuts the term `{term.ctx.segment(term.expr, 60)}` (line {term.stmt.lineno}{term_file})"
                        f" from the graph: that term of the loss backpropagated at {where}{loss_file} has no autograd path"
                        " left, so it changes the logged loss but adds no gradient",
                        observation=term.ctx.line_text(term.stmt.lineno).strip() if there is not term.ctx or site is not term.stmt else None,
                        next_test="compare parameter gradients from one step with and one without that term (same batch): identical",
                    )
                )
        yield from dedupe(iter(found))
