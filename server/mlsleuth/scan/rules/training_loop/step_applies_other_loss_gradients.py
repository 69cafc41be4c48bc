"""The ``step-applies-other-loss-gradients`` rule: one network's loss leaves gradients in another network, and that
network's optimizer steps with them before they are cleared."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import gradient_paths
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.lightning import unpacked_optimizer
from mlsleuth.scan.analysis.optimizer_params import modules_in_scope, modules_passed_in
from mlsleuth.scan.analysis.training_step_model import Event
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    compatible,
    method_iteration,
    optimizer_name,
    zero_clears,
)

# calls that switch gradients off for a module's parameters while another loss runs through it
_FREEZE_WORDS = ("requires_grad", "freeze", "toggle_optimizer")


def _nested(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _through_own_methods(event: Event) -> bool:
    """Reached directly or only through ``self.method(...)`` calls: names such as ``self.D`` mean the same there."""
    return all(isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"
               for c in event.via)


def _construction(ctx: FileContext, step: Event) -> ast.Call | None:
    """Where the stepped optimizer is built: read by the loop model, or, in a Lightning module's manual optimization,
    the entry of ``configure_optimizers`` that ``opt_g, opt_d = self.optimizers()`` unpacks."""
    obj = step.obj
    if obj is not None:
        if obj.kind != "optimizer":
            return None
        if obj.construction is not None and obj.name != "optimizers":
            return obj.construction
    receiver = step.node.func.value if isinstance(step.node, ast.Call) and isinstance(step.node.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and not step.via:
        return unpacked_optimizer(ctx, receiver)
    return None


def _passed_param(step: Event) -> str | None:
    """The parameter name when the stepped optimizer is one its caller passes (``train(G, D, opt_g, opt_d)``)."""
    obj = step.obj
    if obj is None or obj.ctx is None or step.via or not (obj.key or "").startswith("param:"):
        return None
    return obj.key.split(":", 2)[2]


def _modules(ctx: FileContext, step: Event) -> frozenset[str] | None:
    """What the stepped optimizer trains, named as the code around the step names it; None when unknown."""
    if step.obj is None or step.obj.ctx is None:
        return modules_in_scope(ctx, _construction(ctx, step), step.node) or None
    param = _passed_param(step)
    func = ctx.enclosing_function(step.node)
    if param is None or func is None:
        return None
    return modules_passed_in(ctx, func, param) or None


def _named_alike(ctx: FileContext, step: Event, backward: Event) -> bool:
    """The optimizer's module names mean the same where the loss is read."""
    if step.obj is None or step.obj.ctx is None:
        return modules_in_scope(ctx, _construction(ctx, step), backward.node) is not None
    return not backward.via and ctx.enclosing_function(backward.node) is ctx.enclosing_function(step.node)


def _freezes(node: ast.AST) -> bool:
    """``node`` sets ``requires_grad`` (``p.requires_grad = False``, ``requires_grad_(False)``) or calls something named
    for it (``set_requires_grad(D, False)``, ``freeze(D)``, Lightning's ``toggle_optimizer``)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr == "requires_grad" and isinstance(n.ctx, ast.Store):
            return True
        if isinstance(n, ast.Call):
            func = n.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if any(w in name.lower() for w in _FREEZE_WORDS):
                return True
    return False


def _toggles_gradients(ctx: FileContext, loop: ast.AST, events: list[Event]) -> bool:
    """The iteration switches gradients off and on (in its own body, in a helper it calls, in an inlined helper):
    the other loss may then not reach the module at all, which a reading of the values cannot tell."""
    regions: list[ast.AST] = [loop]
    for event in events:
        for call in event.via:
            callee = ctx.callee_definition(call)
            if callee is not None:
                regions.append(callee)
    seen: set[int] = set()
    for region in regions:
        if id(region) in seen:
            continue
        seen.add(id(region))
        if _freezes(region):
            return True
        for call in ctx.calls(region):
            callee = ctx.callee_definition(call)
            if callee is not None and id(callee) not in seen:
                seen.add(id(callee))
                if _freezes(callee):
                    return True
    return False


@register_rule
class StepAppliesOtherLossGradients(LoopRule):
    """An optimizer steps with gradients another network's loss left in it.

    What it finds: a loop (or a per-batch method) with two optimizers over different modules, where a
    loss meant for one of them (the optimizers stepped after its `backward()` and before the next one,
    or those cleared just before it) also reaches the other optimizer's module on a live path (`D(G(z))`
    in the generator's loss, the critic in the actor's loss, the encoder in a decoder's loss), and that
    other optimizer, which has a loss of its own, then steps before its gradients are cleared: its
    `zero_grad` ran before that backward, or only right after its own `step()` (so the leftover joins its
    own loss's gradients in the next iteration). The finding points where the clear belongs: that
    optimizer's own backward (or its step). Paths are read as `loss-misses-trained-model` reads them
    (`.detach()`, `.data`, `torch.no_grad()` and a helper's flag that detaches cut them); the rule stays
    silent where the iteration toggles `requires_grad`, where one step follows both losses (joint
    training), for a module both optimizers train (a shared trunk), and where an optimizer's modules are
    unknown. Optimizers are read from their construction (`Adam(model.encoder_params())` through the
    method), through the one caller that passes them to a training function, and from
    `configure_optimizers` for Lightning's `self.optimizers()`. A loop that never clears that optimizer
    is `zero-grad-misses-an-optimizer`.
    Why it matters: `backward()` adds into every parameter it reaches, whichever optimizer the loss was
    meant for. The second network is then updated with the first one's objective too: a discriminator
    pushed to call fakes real, a critic moved to flatter the actor. Nothing fails; training is just
    unstable or collapses, which passes for ordinary GAN or RL instability.
    How to confirm: just before the second optimizer's `step()`, print the gradient norm of one of its
    parameters with and without the other loss's `backward()` (same batch): it differs.
    What to do instead: clear that optimizer's gradients right before its own loss's `backward()`
    (`opt_D.zero_grad(set_to_none=True)`), or keep the other loss out of it (`requires_grad_(False)`
    on its parameters around that loss, or a `.detach()` where it was not meant to learn).
    """

    id = "step-applies-other-loss-gradients"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("zero_grad",)
    requires = ((STEP_CALL,), ("backward",))

    def _findings(self, ctx, traces):
        yield from super()._findings(ctx, traces)
        for trace in traces:
            body = method_iteration(trace)  # one iteration, read without wrapping around (nothing says it runs again)
            if body is not None:
                yield from self._check(ctx, trace.root, body, wrap=False)

    def check_loop(self, ctx, trace, loop, events):
        yield from self._check(ctx, loop, events, wrap=True)

    def _check(self, ctx, loop, events, *, wrap):
        kinds = {e.kind for e in events}
        if "opaque" in kinds or "hands_optimizer" in kinds or "backward" not in kinds:
            return
        first_step: dict[str, Event] = {}
        for e in events:
            if e.kind == "step":
                if e.key is None or not _through_own_methods(e) or _construction(ctx, e) is None:
                    return
                first_step.setdefault(e.key, e)
        if len(first_step) < 2:
            return
        # an optimizer over something that is not a named module (``Adam([log_alpha])``, a list built elsewhere) is
        # never the one reported, and a loss meant for it is not read (what it trains is unknown)
        modules: dict[str, frozenset[str] | None] = {key: _modules(ctx, step) for key, step in first_step.items()}
        if sum(m is not None for m in modules.values()) < 2:
            return
        zeros = [e for e in events if e.kind == "zero_grad"]
        cleared = {key for key, step in first_step.items()
                   if any(zero_clears(z, step, first_step, modules) is not False for z in zeros)}
        if not cleared:
            return  # nothing is cleared where it is used: missing-zero-grad / zero-grad-misses-an-optimizer
        everything = frozenset().union(*(m for m in modules.values() if m))
        intended = {i: self._intended(events, i, first_step, modules) for i, e in enumerate(events) if e.kind == "backward"}
        toggles: bool | None = None
        for i, backward in enumerate(events):
            if backward.kind != "backward" or backward.loss is None or not _through_own_methods(backward):
                continue
            owners = intended[i]
            if not owners or any(modules[k] is None for k in owners) or not all(
                    _named_alike(ctx, first_step[k], backward) for k in first_step if modules[k] is not None):
                continue
            owned = frozenset().union(*(modules[k] for k in owners))
            flow = gradient_paths.Reader(ctx, everything, around=backward.node).flow(backward.loss)
            if flow.hidden:
                continue
            for key in first_step:
                if key in owners or key not in cleared or modules[key] is None \
                        or not any(key in v for j, v in intended.items() if j != i):
                    continue  # meant for it, never cleared (another rule), unknown, or it has no loss of its own
                foreign = sorted(m for m in flow.live & modules[key] if not any(_nested(m, o) for o in owned))
                if not foreign:
                    continue
                hit = self._next_step_uncleared(events, i, key, first_step, modules, intended, wrap)
                if hit is None:
                    continue
                if toggles is None:
                    toggles = _toggles_gradients(ctx, loop, events)
                if toggles:
                    return
                yield self._finding(ctx, backward, hit, owners, first_step, foreign)

    @staticmethod
    def _intended(events: list[Event], i: int, first_step: dict[str, Event], modules) -> set[str]:
        """The optimizers the loss backpropagated at ``i`` is meant for: those stepped after it and before the next
        backward; where some optimizers are cleared just before it (after the previous backward, not right after their
        own step), those of them (``opt_d.zero_grad(); loss_d.backward(); opt_g.zero_grad(); loss_g.backward();
        opt_d.step(); opt_g.step()``: one loss for each)."""
        backward = events[i]
        stepped: set[str] = set()
        for e in events[i + 1:]:
            if e.kind == "backward" and compatible(e, backward):
                break
            if e.kind == "step" and e.key is not None and compatible(e, backward):
                stepped.add(e.key)
        cleared: set[str] = set()
        start = i
        while start > 0 and not (events[start - 1].kind == "backward" and compatible(events[start - 1], backward)):
            start -= 1
        for e in events[start:i]:
            if e.kind == "zero_grad" and compatible(e, backward):
                cleared.update(k for k, step in first_step.items() if zero_clears(e, step, first_step, modules) is True)
        stepped_before = {e.key for e in events[start:i] if e.kind == "step"}
        cleared -= stepped_before
        if cleared and stepped:
            return (cleared & stepped) or stepped
        return cleared or stepped

    @staticmethod
    def _next_step_uncleared(events, i, key, first_step, modules, intended, wrap) -> tuple[Event, bool, Event | None] | None:
        """(the step of optimizer ``key`` that runs next after the backward at ``i``, whether it is in the next
        iteration, that optimizer's own backward on the way) when no clear of that optimizer (or one that cannot be
        placed) runs in between; None otherwise."""
        backward = events[i]
        order = [(j, False) for j in range(i + 1, len(events))]
        if wrap:
            order += [(j, True) for j in range(i)]
        own = None
        for j, later in order:
            e = events[j]
            if e.kind == "zero_grad" and zero_clears(e, first_step[key], first_step, modules) is not False:
                return None
            if e.kind == "backward" and key in intended.get(j, ()):
                own = e
            if e.kind == "step" and e.key == key:
                return (e, later, own) if later or compatible(e, backward) else None
        return None

    def _finding(self, ctx, backward: Event, hit: tuple[Event, bool, Event | None], owners: set[str], first_step, foreign):
        step, later, own = hit
        modules = ", ".join(f"`{m}`" for m in foreign)
        mine = "/".join(optimizer_name(first_step[k]) for k in sorted(owners))
        other = optimizer_name(step)
        when = "in the next iteration" if later else "later in this iteration"
        loss_text = ctx.segment(backward.loss, 40)
        # where the fix goes: the clear belongs right before the other optimizer's own backward, else before its step
        at = own if own is not None and _through_own_methods(own) else step
        return self.finding(
            ctx,
            at.node,
            f"the backward of `{loss_text}` at {backward.where()} is meant for {mine}, but it also reaches {modules},"
            f" which {other} trains, and nothing clears {other}'s gradients before its step() at {step.where(backward)}"
            f" {when}" + (f" (its own loss's backward at {own.where(backward)} adds to them)" if own is not None else "")
            + f": {modules} is updated with that loss's gradients too; "
            + (f"clear {other}'s gradients right before this backward" if at is own else
               f"step {other} before that backward, or keep that loss out of {modules}"),
            next_test=(
                f"just before {other}.step(), print the grad norm of one parameter of {foreign[0]} with and without"
                f" the backward at {backward.where()} (same batch): it differs"
            ),
        )
