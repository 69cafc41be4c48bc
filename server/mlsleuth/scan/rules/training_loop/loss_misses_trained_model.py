"""The ``loss-misses-trained-model`` rule: a loss (or a term of it) reaches the model its optimizer trains only through a
detached value, so that model gets no gradient from it."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import gradient_paths
from mlsleuth.scan.analysis.context import FileContext, FunctionNode, constant
from mlsleuth.scan.analysis.lightning import configured_optimizers
from mlsleuth.scan.analysis.optimizer_params import modules_in_scope
from mlsleuth.scan.analysis.training_step_model import dedupe, loop_model, step_loops
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule


def _index_branch(ctx: FileContext, node: ast.AST, param: str) -> int | None:
    """K when ``node`` sits in the body of ``if <param> == K`` (or the else of ``if <param> != K``)."""
    child = node
    for parent in ctx.ancestors(node):
        if isinstance(parent, ast.If) and isinstance(parent.test, ast.Compare) and len(parent.test.ops) == 1 \
                and isinstance(parent.test.left, ast.Name) and parent.test.left.id == param:
            k = constant(parent.test.comparators[0])
            if isinstance(k, int) and not isinstance(k, bool):
                op = parent.test.ops[0]
                in_body = child in parent.body
                if isinstance(op, ast.Eq) and in_body or isinstance(op, ast.NotEq) and not in_body:
                    return k
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        child = parent
    return None


@register_rule
class LossMissesTrainedModel(Rule):
    """A loss or loss term reaches the model being trained only through a detached value.

    What it finds: a backpropagated loss (or one term of a summed loss) whose only path to the module
    held by the optimizer stepped after it runs through `.detach()`, `.data`, `torch.no_grad()` or a
    number (`.item()`), while it still reaches other modules live: a generator's adversarial loss on
    `D(fake.detach())` followed by `opt_G.step()`, an encoder's loss through `encoder(x).detach()` with
    only the encoder's optimizer stepping. The optimizer's modules are read from its construction
    (`Adam(G.parameters())`), or, for a `training_step(batch, optimizer_idx)` branch, from the list
    `configure_optimizers` returns.
    Why it matters: backward runs without error, because the other module (the discriminator) gives
    the loss a graph, but no gradient reaches the model that is being stepped: that term has no effect
    on it, and the logged value suggests it is being optimised.
    How to confirm: after backward, compare the stepped model's gradients with and without that term
    (same batch): they are identical (or all None when it is the whole loss).
    What to do instead: pass the live value (`D(fake)`, not `D(fake.detach())`) in the step that trains
    the model; detach only in the step that trains the other module (the discriminator's own loss).
    """

    id = "loss-misses-trained-model"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("detach", "data", "no_grad", "inference_mode", "item")
    requires = (("parameters",),)

    def check(self, ctx):
        found = []
        for loss, where, modules, opt_text in self._losses(ctx):
            terms = gradient_paths.loss_terms(ctx, loss, gradient_paths.Reader(ctx, modules))
            for term in terms:
                if not term.local or term.ctx is not ctx:
                    continue  # a helper's term: the optimizer's module names mean nothing there
                f = term.flow()
                if f.hidden or f.severed or (f.live & modules) or not (f.dead & modules):
                    continue
                dead = ", ".join(sorted(f.dead & modules))
                cut = f.where
                there, site = gradient_paths.cut_site(ctx, f, term.stmt)
                cut_text = f"`{there.segment(cut, 50)}`" if isinstance(cut, ast.expr) else "the torch.no_grad() block around it"
                in_file = "" if there is ctx else f" of {ctx.display_path}"
                what = "the loss" if len(terms) == 1 else f"the term `{ctx.segment(term.expr, 60)}` (line {term.stmt.lineno}{in_file})"
                found.append(
                    self.finding(
                        there,
                        site,
                        f"{cut_text} cuts {what} from `{dead}`, the model {opt_text} trains: the loss backpropagated at"
                        f" {where}{in_file} reaches `{dead}` only through this cut, so it sends no gradient there",
                        next_test=f"after backward, compare `{dead}`'s gradients with and without that term (same batch): identical",
                    )
                )
        yield from dedupe(iter(found))

    def _losses(self, ctx: FileContext):
        """(loss, where it is backpropagated, the modules trained by the optimizer(s) stepped next, their text)."""
        model = loop_model(ctx)
        for trace in model.traces:
            for loop in step_loops(trace):
                events = trace.in_loop(loop)
                for i, event in enumerate(events):
                    if event.kind != "backward" or event.loss is None or event.via:
                        continue
                    steps = []
                    for later in events[i + 1:]:
                        if later.kind == "backward":
                            break
                        if later.kind == "step":
                            steps.append(later)
                    if not steps:
                        continue
                    modules: set[str] = set()
                    for step in steps:
                        obj = step.obj
                        known = None
                        if obj is not None and obj.ctx is None and obj.construction is not None and not step.via:
                            known = modules_in_scope(ctx, obj.construction, event.node)
                        if known is None:
                            modules = set()
                            break
                        modules |= known
                    if modules:
                        yield event.loss, event.where(), frozenset(modules), "/".join(s.target or "?" for s in steps)
        yield from self._indexed_steps(ctx)

    def _indexed_steps(self, ctx: FileContext):
        """``training_step(self, batch, ..., optimizer_idx)``: the loss returned in the ``optimizer_idx == K`` branch
        trains the K-th optimizer ``configure_optimizers`` returns (Lightning's multi-optimizer convention)."""
        for cls in ctx.classes:
            step: FunctionNode | None = ctx.method(cls, "training_step")
            if step is None or "optimizer_idx" not in [a.arg for a in step.args.args]:
                continue
            optimizers = configured_optimizers(ctx, cls)
            if not optimizers:
                continue
            for ret in ast.walk(step):
                if not isinstance(ret, ast.Return) or ret.value is None or ctx.enclosing_function(ret) is not step:
                    continue
                k = _index_branch(ctx, ret, "optimizer_idx")
                if k is None or not 0 <= k < len(optimizers):
                    continue
                loss = gradient_paths.returned_loss(ret.value)
                modules = modules_in_scope(ctx, optimizers[k], ret) if loss is not None else None
                if modules:
                    yield loss, f"line {ret.lineno} (returned for optimizer {k})", modules, f"optimizer {k} of configure_optimizers"
