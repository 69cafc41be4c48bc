"""A static model of "the training step": which training events run, in which order, in which loop.

Rules about the training loop all ask the same questions: in this loop, is
there a ``backward``? Where is ``zero_grad`` relative to it? Is the scheduler
stepped per batch or per epoch? Is ``model.eval()`` undone before the next
epoch? This module answers them once per file.

For every *root* (the module body and every function), a :class:`Trace` lists
the training events in execution order:

``zero_grad``  ``optimizer.zero_grad()``, ``model.zero_grad()``, ``p.grad = None``, ``p.grad.zero_()``
``backward``   ``loss.backward()``, ``scaler.scale(loss).backward()``, ``accelerator.backward(loss)``,
               ``torch.autograd.backward(loss)``, ``self.manual_backward(loss)``
``step``       ``optimizer.step()``, ``scaler.step(optimizer)``
``sched_step`` ``scheduler.step()``
``clip``       ``clip_grad_norm_`` / ``clip_grad_value_``
``unscale``    ``scaler.unscale_(optimizer)``
``scaler_update`` ``scaler.update()``
``train`` / ``eval``  ``model.train()`` / ``model.eval()`` (``train(False)`` counts as eval)
``opaque``     a call to a same-file helper too deep to inline (an event may hide in it)
``hands_optimizer``  a known optimizer passed to a training helper the scan cannot read (a module missing
               from the scanned files): it probably steps it there

Calls to functions and methods defined in the same file are inlined (two
levels deep), with the callee's parameters mapped to the caller's arguments,
so ``train_epoch(model, opt)`` called from an epoch loop contributes its
batch loop, nested inside the epoch loop. A closure passed to
``optimizer.step(closure)`` (LBFGS) is inlined just before the step.

A Lightning-style ``training_step`` method counts as the body of a batch loop
(the framework calls it once per batch). Only scopes that can reach an event
method by name are traced (a cheap pre-filter that keeps library files fast).

Each event records the loops around it (outermost first, across inlining),
the ``if`` tests guarding it, the ``with`` contexts it runs under (``no_grad``,
``accumulate``), the ``try`` blocks around it and the call sites it was
reached through. Variables holding optimizers, schedulers (with their kind:
per-step or per-epoch) and gradient scalers are identified from their
construction, through import aliases, local assignments and ``self``
attributes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mlsleuth.scan.analysis import function_summaries, value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    FunctionNode,
    argument,
    call_method,
    constant,
    dotted,
    iter_children,
    keyword,
)
from mlsleuth.scan.analysis.torch_idioms import NO_GRAD

INLINE_DEPTH = 2
# -- object kinds -------------------------------------------------------------------

_OPTIMIZER_PREFIXES = ("torch.optim.", "apex.optimizers.", "bitsandbytes.optim.", "torch_optimizer.", "timm.optim.")
_OPTIMIZER_EXACT = {
    "transformers.AdamW",
    "transformers.Adafactor",
    "transformers.optimization.AdamW",
    "transformers.optimization.Adafactor",
    "timm.optim.create_optimizer",
    "timm.optim.create_optimizer_v2",
}
_NOT_OPTIMIZERS = {"Optimizer", "lr_scheduler", "swa_utils"}

# Schedulers whose natural unit is the optimizer step (one call per batch).
PER_STEP_SCHEDULERS = {
    "OneCycleLR",
    "CyclicLR",
    "get_linear_schedule_with_warmup",
    "get_cosine_schedule_with_warmup",
    "get_cosine_with_hard_restarts_schedule_with_warmup",
    "get_polynomial_decay_schedule_with_warmup",
    "get_constant_schedule_with_warmup",
    "get_inverse_sqrt_schedule",
    "get_wsd_schedule",
    "get_scheduler",
}
# Schedulers usually configured in epochs (one call per epoch).
PER_EPOCH_SCHEDULERS = {"StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "ReduceLROnPlateau"}
_SCHEDULER_MODULES = ("torch.optim.lr_scheduler.", "transformers.", "timm.scheduler.")
_GRADSCALER = {
    "torch.cuda.amp.GradScaler",
    "torch.amp.GradScaler",
    "torch.GradScaler",
    "torch.amp.grad_scaler.GradScaler",
    "torch.cuda.amp.grad_scaler.GradScaler",
}

_OPT_NAME = re.compile(r"(^|_)(opt|optim|optimi[sz]er)s?(_|$)|optimi[sz]er", re.IGNORECASE)
_SCHED_NAME = re.compile(r"sched|lr_policy", re.IGNORECASE)
_GRAD_CLEAR_FUNCTIONS = frozenset({"zero_grad", "zero_grads", "zero_gradients", "clear_grad", "clear_grads", "clear_gradients"})
_SCALER_NAME = re.compile(r"(^|_)(grad_?)?scaler$", re.IGNORECASE)
_ACCEL_NAME = re.compile(r"accelerator|fabric|engine", re.IGNORECASE)
_EVENT_METHODS = {
    "zero_grad", "clear_grad", "clear_gradients", "backward", "manual_backward", "step", "clip_grad_norm_",
    "clip_grad_value_", "clip_grad_norm", "clip_gradients", "unscale_", "train", "eval", "zero_",
}
# calls that are never a project's training helper: library methods every file calls many times
_NOT_HELPERS = frozenset({
    "append", "extend", "items", "keys", "values", "get", "update", "format", "join", "split", "strip", "replace",
    "item", "size", "view", "reshape", "to", "cuda", "cpu", "float", "long", "int", "detach", "numpy", "tolist",
    "unsqueeze", "squeeze", "permute", "transpose", "contiguous", "mean", "sum", "max", "min", "argmax", "clone",
    "print", "len", "range", "enumerate", "zip", "isinstance", "getattr", "setattr", "hasattr", "super", "list",
    "dict", "tuple", "set", "str", "open", "add_argument", "parse_args", "add_scalar", "log", "info", "warning",
    "debug", "write", "read", "exists", "makedirs", "parameters", "named_parameters", "state_dict",
    "load_state_dict", "save", "load", "no_grad", "format_exc", "time", "perf_counter", "apply", "modules",
})
_LIBRARY_TOPS = frozenset({
    "torch", "numpy", "np", "pandas", "scipy", "sklearn", "transformers", "lightning", "pytorch_lightning",
    "accelerate", "torchvision", "timm", "os", "sys", "math", "random", "json", "time", "logging", "argparse",
    "collections", "itertools", "functools", "pathlib", "typing", "wandb", "tqdm", "matplotlib", "einops",
})
_SUMMARY_PROBES = 60
# the name of a helper that runs training steps with the optimizer it is given
_TRAINING_HELPER = re.compile(r"train|fit|epoch|optimi[sz]e|learn|update", re.IGNORECASE)
# what a training or evaluation loop iterates over: a loader, batches, epochs, steps
_DATA_LOOP = re.compile(r"load|batch|data|epoch|sampl|train", re.IGNORECASE)
_MAY_HAVE_EVENTS = re.compile(
    r"\.(zero_grad|clear_grad|backward|manual_backward|step|train|eval|unscale_|zero_|clip_grad_\w*)\s*\(|\.grad\b|clip_grad"
)


@dataclass(frozen=True)
class ObjectInfo:
    """What a variable holds, when known from its construction."""

    kind: str  # "optimizer" | "scheduler" | "scaler"
    key: str  # identity used to match events on the same object
    construction: ast.Call | None
    name: str = ""  # class or factory name, e.g. "OneCycleLR"
    ctx: FileContext | None = field(default=None, compare=False)  # the file of ``construction``, when not the rule's own
    # a scheduler a project factory builds (``get_scheduler(cfg.name, opt, max_steps=...)``): that call, in the file
    # that asked; ``construction`` is then the constructor inside the factory
    factory: ast.Call | None = field(default=None, compare=False)

    @property
    def line(self) -> int | None:
        return getattr(self.construction, "lineno", None)

    def built_at(self, here: FileContext) -> str:
        """``line 12`` or, for an object built in another module and passed in, ``main.py line 12``."""
        if self.ctx is not None and self.ctx is not here:
            return f"{self.ctx.display_path} line {self.line}"
        return f"line {self.line}"


def classify_construction(ctx: FileContext, value: ast.AST | None) -> tuple[str, str] | None:
    """(kind, class name) when ``value`` constructs an optimizer, scheduler or grad scaler."""
    if not isinstance(value, ast.Call):
        return None
    qn = ctx.qualname(value) or ""
    last = qn.rsplit(".", 1)[-1]
    if qn in _GRADSCALER or (qn.endswith(".GradScaler") and qn.startswith("torch")):
        return "scaler", last
    if qn.startswith(_SCHEDULER_MODULES) and (
        qn.startswith("torch.optim.lr_scheduler.") or last.startswith("get_") or "scheduler" in qn
    ):
        if last[:1].isupper() or last.startswith(("get_", "create_")):
            if last not in {"LRScheduler", "_LRScheduler"}:
                return "scheduler", last
    if qn in _OPTIMIZER_EXACT:
        return "optimizer", last
    if qn.startswith(_OPTIMIZER_PREFIXES) and last[:1].isupper() and not any(p in qn.split(".") for p in _NOT_OPTIMIZERS):
        return "optimizer", last
    if qn.startswith("timm.optim.create_optimizer"):
        return "optimizer", last
    # Lightning manual optimization: ``opt = self.optimizers()``
    if qn == "self.optimizers":
        return "optimizer", "optimizers"
    if qn == "self.lr_schedulers":
        return "scheduler", "lr_schedulers"
    return None


FACTORY_DEPTH = 3


def factory_scheduler(ctx: FileContext, call: ast.Call, depth: int = 0) -> tuple[FileContext, ast.Call, str] | None:
    """(file, constructor, class name) when ``call`` runs a project function whose every return builds a learning-rate
    scheduler (``get_scheduler(name, opt, ...)`` returning ``cosine_with_warmup(...)`` returning ``LambdaLR(...)``),
    followed through up to ``FACTORY_DEPTH`` functions; the class name is ``""`` when the returns disagree."""
    if depth >= FACTORY_DEPTH:
        return None
    found = value_origins.helper_definition(ctx, call)
    if found is None:
        return None
    fctx, func = found
    products: list[tuple[FileContext, ast.Call, str]] = []
    for ret in sorted(value_origins.returns(func), key=lambda r: (r.lineno, r.col_offset)):
        value = value_origins.local_value(fctx, ret) if isinstance(ret, ast.Name) else ret
        if not isinstance(value, ast.Call):
            return None
        kind = classify_construction(fctx, value)
        if kind is not None:
            if kind[0] != "scheduler":
                return None
            products.append((fctx, value, kind[1]))
            continue
        inner = factory_scheduler(fctx, value, depth + 1)
        if inner is None:
            return None
        products.append(inner)
    if not products:
        return None
    names = {name for _c, _v, name in products}
    first = products[0]
    return first[0], first[1], first[2] if len(names) == 1 else ""


def scheduler_unit(ctx: FileContext, construction: ast.Call | None, name: str) -> str | None:
    """``"step"`` or ``"epoch"`` for the scheduler's natural stepping unit, or None when unclear.

    The class decides first, then the arguments: a ``CosineAnnealingLR`` whose
    ``T_max`` is computed from ``len(loader)`` or a step count is per-step; a
    ``StepLR`` with ``step_size`` in the thousands counts steps; a ``OneCycleLR``
    with ``steps_per_epoch=1`` or ``total_steps=epochs`` is per-epoch.
    """
    if name in PER_STEP_SCHEDULERS:
        if construction is not None:
            if name == "OneCycleLR":
                spe = keyword(construction, "steps_per_epoch")
                total = keyword(construction, "total_steps")
                if constant(spe) == 1:
                    return "epoch"
                if total is not None and _mentions_epochs_only(total):
                    return "epoch"
            if name.startswith("get_"):
                total = keyword(construction, "num_training_steps")
                if total is None and len(construction.args) >= 3:
                    total = construction.args[2]
                if total is not None and _mentions_epochs_only(total):
                    return "epoch"
        return "step"
    if name in PER_EPOCH_SCHEDULERS:
        if construction is None:
            return "epoch"
        if name == "CosineAnnealingLR":
            tmax = argument(construction, 1, "T_max")
            if tmax is not None and _mentions_steps(tmax):
                return "step"
            value = constant(tmax)
            if isinstance(value, int) and value >= 1000:
                return "step"
        if name == "StepLR":
            value = constant(argument(construction, 1, "step_size"))
            size = argument(construction, 1, "step_size")
            if (isinstance(value, int) and value >= 1000) or (size is not None and _mentions_steps(size)):
                return "step"
        if name == "MultiStepLR":
            milestones = argument(construction, 1, "milestones")
            if isinstance(milestones, (ast.List, ast.Tuple)):
                values = [constant(e) for e in milestones.elts]
                if any(isinstance(v, int) and v >= 1000 for v in values):
                    return "step"
            if milestones is not None and _mentions_steps(milestones):
                return "step"
        if name == "ExponentialLR":
            gamma = constant(argument(construction, 1, "gamma"))
            if isinstance(gamma, float) and gamma >= 0.999:
                return "step"
        return "epoch"
    return None


_STEPS_WORD = re.compile(r"len\s*\(|step|iter|batch|total", re.IGNORECASE)


def _mentions_steps(node: ast.AST) -> bool:
    return bool(_STEPS_WORD.search(ast.unparse(node)))


def _mentions_epochs_only(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return bool(re.search(r"epoch", text, re.IGNORECASE)) and not _STEPS_WORD.search(text)


# -- events --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Guard:
    """An ``if`` around an event: its test, which branch the event is in, and its loop depth."""

    node: ast.If | ast.IfExp | ast.While
    test: ast.expr
    branch: str  # "body" | "orelse"
    depth: int  # number of loops around the ``if`` itself


@dataclass(frozen=True)
class Event:
    kind: str
    node: ast.AST  # the call (or assignment) in the file
    target: str | None  # the object acted on, as written after parameter mapping ("optimizer", "self.opt")
    key: str | None  # identity of that object (construction site when known, else the text)
    obj: ObjectInfo | None  # what the object is, when known
    loops: tuple[ast.AST, ...]  # loops around the event, outermost first (across inlined calls)
    guards: tuple[Guard, ...]
    contexts: tuple[str, ...]  # "no_grad", "enable_grad", "accumulate"
    trys: tuple[ast.Try, ...]
    via: tuple[ast.Call, ...]  # call sites inlined to reach the event, outermost first
    order: int
    loss: ast.AST | None = None  # for backward: the loss expression (in the callee's text)
    scaled: bool = False  # backward through ``scaler.scale(loss)``
    closure: bool = False  # inside a closure passed to ``optimizer.step(closure)``
    arg: ast.AST | None = None  # scaler.step/unscale_: the optimizer argument

    @property
    def line(self) -> int:
        return getattr(self.node, "lineno", 0)

    @property
    def anchor(self) -> ast.AST:
        """The node in the analysed root that leads to the event (the outermost call site when inlined)."""
        return self.via[0] if self.via else self.node

    def where(self, ref: Event | None = None) -> str:
        """``line 31`` or ``line 31 (in train_step(), called at line 52)``.

        With ``ref`` (an event named earlier in the same message) reached through the same
        calls, the helper is not repeated: ``line 31``.
        """
        if not self.via or (ref is not None and ref.via == self.via):
            return f"line {self.line}"
        site = self.via[-1]
        name = dotted(site.func) or "helper"
        return f"line {self.line} (in {name}(), called at line {site.lineno})"

    def guarded_within(self, loop: ast.AST | None) -> list[Guard]:
        """The guards that sit inside ``loop`` (all guards when loop is None)."""
        if loop is None:
            return list(self.guards)
        if loop not in self.loops:
            return []
        depth = self.loops.index(loop) + 1
        return [g for g in self.guards if g.depth >= depth and g.node is not loop]

    def exclusive_with(self, other: Event) -> bool:
        """True when the two events sit in different branches of one ``if`` (never both run)."""
        mine = {id(g.node): g.branch for g in self.guards}
        return any(id(g.node) in mine and mine[id(g.node)] != g.branch for g in other.guards)


@dataclass
class Trace:
    """The training events reachable from one root (module body or function), in order."""

    root: ast.AST
    events: list[Event] = field(default_factory=list)
    loop_parent: dict[ast.AST, ast.AST | None] = field(default_factory=dict)  # loop -> enclosing loop in this trace
    loop_via: dict[ast.AST, tuple[ast.Call, ...]] = field(default_factory=dict)

    def in_loop(self, loop: ast.AST) -> list[Event]:
        """Events of one iteration of ``loop`` (including nested loops), in order."""
        return [e for e in self.events if loop in e.loops]

    def direct(self, loop: ast.AST) -> list[Event]:
        """Events whose innermost loop is ``loop``."""
        return [e for e in self.events if e.loops and e.loops[-1] is loop]

    def loops(self) -> list[ast.AST]:
        return list(self.loop_parent)

    def inner_loops(self, loop: ast.AST) -> list[ast.AST]:
        return [child for child, parent in self.loop_parent.items() if parent is loop]

    def kinds(self, loop: ast.AST | None = None) -> set[str]:
        events = self.events if loop is None else self.in_loop(loop)
        return {e.kind for e in events}


# -- the file-level model ----------------------------------------------------------------------


class LoopModel:
    """Training-loop facts for one file; build with :func:`loop_model` (cached per context)."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._objects: dict[int, ObjectInfo | None] = {}
        self._optimizers: list[ObjectInfo] | None = None
        self._relevant: set[ast.AST] | None = None
        self._traces: list[Trace] | None = None

    @property
    def relevant(self) -> set[ast.AST]:
        """Scopes worth tracing (see :meth:`_relevant_scopes`), found on first use."""
        if self._relevant is None:
            # Cheap text pre-filter: without any event-like call in the source there is nothing to trace.
            # Without the event names in its text a file can still train through helpers of other
            # modules (`model.train_emb(batch)`, `validate(model)` -> `model.val_start()`): with a
            # project, calls whose summary has events count too.
            if _MAY_HAVE_EVENTS.search(self.ctx.source):
                self._relevant = self._relevant_scopes()
            elif self.ctx.project is not None:
                self._relevant = self._relevant_scopes(through_helpers=True)
            else:
                self._relevant = set()
        return self._relevant

    @property
    def traces(self) -> list[Trace]:
        """One trace per relevant root that has events, built on first use (rules that only ask
        about optimizer constructions never pay for it)."""
        if self._traces is None:
            traces = []
            for root in self._roots():
                trace = _TraceBuilder(self, root).build()
                if trace.events:
                    traces.append(trace)
            self._traces = traces
        return self._traces

    def _roots(self) -> Iterator[ast.AST]:
        if self.ctx.tree in self.relevant:
            yield self.ctx.tree
        for func in self.ctx.functions:
            if func in self.relevant:
                yield func

    def _relevant_scopes(self, *, through_helpers: bool = False) -> set[ast.AST]:
        """Scopes that contain a training event, directly or through in-file helpers (a cheap pre-filter).

        Building a trace costs a walk of the root and its inlined helpers; most functions of a
        library file have nothing to do with training, so only scopes that can reach an event
        method by name are traced.
        """
        ctx = self.ctx
        by_name: dict[str, list[ast.Call]] = {}
        direct: set[ast.AST] = set()
        for node in ctx.nodes_of(ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else None)
            if name is not None:
                by_name.setdefault(name, []).append(node)
        for node in ctx.nodes_of(ast.Attribute):
            if node.attr == "grad" and isinstance(node.ctx, ast.Store):
                direct.add(ctx.enclosing_function(node) or ctx.tree)
        for name, calls in by_name.items():
            if name in _EVENT_METHODS or name.endswith(("clip_grad_norm_", "clip_grad_value_")):
                direct.update(ctx.enclosing_function(c) or ctx.tree for c in calls)
        if through_helpers:
            direct.update(self._scopes_calling_summarised_events(by_name, direct))
        relevant = set(direct)
        frontier = set(direct)
        for _ in range(INLINE_DEPTH):
            names = {f.name for f in frontier if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            callers = {ctx.enclosing_function(c) or ctx.tree for n in names for c in by_name.get(n, [])}
            frontier = callers - relevant
            relevant |= callers
        # closures defined in a relevant function (LBFGS closure) are walked through their parent
        return relevant

    def _scopes_calling_summarised_events(self, by_name: dict[str, list[ast.Call]], known: set[ast.AST]) -> set[ast.AST]:
        """Scopes not yet known to train that call a function of another module, or a method of a project
        class's instance, whose summary has training events. Bounded: names that cannot be a project
        helper (methods of modules such as ``torch``/``np``, the commonest tensor and container methods)
        are skipped, and at most ``_SUMMARY_PROBES`` distinct calls are resolved per file."""
        ctx = self.ctx
        imports = ctx.imports
        found: set[ast.AST] = set()
        probes = 0
        # training happens in loops: only scopes that loop, or that a loop calls, are probed
        looping: set[ast.AST] = set()
        for loop in ctx.nodes_of(ast.For, ast.AsyncFor):
            if not _DATA_LOOP.search(ctx.segment(loop.iter, 120)):
                continue  # `for p in params`, `for rank in range(world)`: not a training loop
            looping.add(ctx.enclosing_function(loop) or ctx.tree)
            for call in ctx.calls(loop):
                if isinstance(call.func, ast.Name) and call.func.id in by_name:
                    looping.update(f for f in ctx.functions if f.name == call.func.id)
        for name, calls in by_name.items():
            if name in _EVENT_METHODS or name in _NOT_HELPERS or name.startswith("__"):
                continue
            for call in calls:
                scope = ctx.enclosing_function(call) or ctx.tree
                if scope in known or scope in found or scope not in looping:
                    continue
                func = call.func
                if isinstance(func, ast.Attribute):
                    head = value_origins.root_name(func.value)
                    if head is None or head == "self" or head in imports and not self._project_import(head):
                        continue
                elif isinstance(func, ast.Name):
                    if func.id not in imports or not self._project_import(func.id):
                        continue
                else:
                    continue
                probes += 1
                if probes > _SUMMARY_PROBES:
                    return found
                bind = (isinstance(func, ast.Attribute) and head in value_origins.function_params(scope)
                        and ctx.project.may_define_training_helper(name))
                if self.summary_of(call, bind_params=bind) is not None:
                    found.add(scope)
        return found

    def _project_import(self, name: str) -> bool:
        """``name`` is imported from a module the project has (not torch, numpy, ...)."""
        target = self.ctx.imports.get(name, "")
        top = target.split(".", 1)[0]
        return bool(top) and top not in _LIBRARY_TOPS

    # -- objects ---------------------------------------------------------------------------
    def object_of(self, expr: ast.AST | None, env: _Env | None = None) -> ObjectInfo | None:
        """What ``expr`` (a name, ``self.attr`` or call) holds: optimizer, scheduler, scaler, or None."""
        if expr is None:
            return None
        expr, env = _through_env(expr, env)
        cache_key = id(expr)
        if cache_key in self._objects and env is None:
            return self._objects[cache_key]
        info = self._object_of(expr)
        if env is None:
            self._objects[cache_key] = info
        return info

    def _object_of(self, expr: ast.AST) -> ObjectInfo | None:
        ctx = self.ctx
        value: ast.AST | None = expr
        if isinstance(expr, ast.Name):
            value = self._name_value(expr)
            if value is None:
                return self._passed_in(expr)
        elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            value = ctx.resolve(expr)
            if value is expr:
                value = None
        elif isinstance(expr, ast.Subscript):
            # ``optimizers[0]`` / ``self.optimizers()[0]``: the element of a list of optimizers
            inner = self._object_of(expr.value) if not isinstance(expr.value, ast.Call) else None
            if isinstance(expr.value, ast.Call):
                found = classify_construction(ctx, expr.value)
                if found:
                    return ObjectInfo(found[0], ctx.segment(expr), expr.value, found[1])
            return inner
        found = classify_construction(ctx, value)
        if found and isinstance(value, ast.Call):
            return ObjectInfo(found[0], f"@{value.lineno}:{value.col_offset}", value, found[1])
        if isinstance(value, ast.Call) and _SCHED_NAME.search(ctx.segment(expr, 80) + ctx.segment(value.func, 80)):
            built = factory_scheduler(ctx, value)
            if built is not None:
                fctx, inner, name = built
                return ObjectInfo("scheduler", f"@{value.lineno}:{value.col_offset}", inner, name,
                                  ctx=fctx if fctx is not ctx else None, factory=value)
        if isinstance(value, (ast.List, ast.Tuple)) and value.elts:
            kinds = [classify_construction(ctx, e) for e in value.elts]
            if all(kinds) and len({k[0] for k in kinds if k}) == 1:
                first = kinds[0]
                assert first is not None
                return ObjectInfo(first[0], f"@{value.lineno}:{value.col_offset}", None, first[1])
        return None

    def _passed_in(self, name: ast.Name) -> ObjectInfo | None:
        """The object every caller passes for parameter ``name`` (in this file or, in a scan, the project).

        ``train(model, loader, optimizer, scheduler)`` called as ``train(..., StepLR(opt, 7))``:
        the scheduler's construction is at the call site. Unknown (None) unless there is at
        least one caller and all of them pass the same kind of object.
        """
        ctx = self.ctx
        func = ctx.enclosing_function(name)
        if func is None or name.id not in value_origins.function_params(func):
            return None
        busy = self.__dict__.setdefault("_binding", set())
        if (id(func), name.id) in busy or len(busy) > 4:
            return None
        busy.add((id(func), name.id))
        try:
            found: list[tuple[ObjectInfo, FileContext]] = []
            for sctx, site in value_origins.all_call_sites(ctx, func):
                arg = value_origins.argument_for(site, func, name.id)
                info = loop_model(sctx).object_of(arg) if arg is not None else None
                if info is None:
                    return None
                found.append((info, info.ctx or sctx))
        finally:
            busy.discard((id(func), name.id))
        if not found or len({(f.kind, f.name) for f, _c in found}) != 1:
            return None
        first, where = found[0]
        return ObjectInfo(first.kind, f"param:{func.name}:{name.id}", first.construction, first.name, ctx=where)

    def _name_value(self, name: ast.Name, depth: int = 0) -> ast.AST | None:
        """The value bound to ``name`` before its use, seeing through ``accelerator.prepare``-style wrappers.

        ``model, opt, sched = accelerator.prepare(model, opt, sched)`` (also ``fabric.setup``,
        ``amp.initialize``, ``opt = hvd.DistributedOptimizer(opt)``) hands back the same objects
        wrapped; the construction that decides what ``sched`` is sits in the earlier binding.
        """
        ctx = self.ctx
        scope = ctx.enclosing_function(name) or ctx.tree
        store = isinstance(name.ctx, ast.Store)  # asking about an assignment target: its own binding counts
        entries = [e for e in ctx.assignments(scope).get(name.id, []) if e[0] < name.lineno or (store and e[0] == name.lineno)]
        if not entries:
            return self.module_value(name.id) if scope is not ctx.tree else None
        _line, stmt, value = entries[-1]
        call = getattr(stmt, "value", None) if isinstance(stmt, ast.Assign) else None
        if isinstance(call, ast.Call) and depth < 4:
            passed = [a for a in call.args if isinstance(a, ast.Name) and a.id == name.id]
            wrapper = call.args and (value is None or value is call) and passed
            if wrapper and classify_construction(ctx, call) is None:
                return self._name_value(passed[0], depth + 1)
        if value is None:
            return None
        if isinstance(value, ast.Name) and depth < 4:
            return self._name_value(value, depth + 1) or value
        return value

    def summary_of(self, call: ast.Call, *, bind_params: bool = True) -> tuple[ast.AST, tuple] | None:
        """(callee, its effects) for a call this file cannot inline: a function of another module or a
        method of an instance (see :mod:`~mlsleuth.scan.analysis.function_summaries`); None if unknown or inert."""
        cache = self.__dict__.setdefault("_summaries", {})
        key = (call, bind_params)
        if key in cache:
            return cache[key]
        found = None
        if self.ctx.project is not None or isinstance(call.func, ast.Attribute):
            target = function_summaries.resolve_call(self.ctx, call, bind_params=bind_params)
            if target is not None and not (target[0] is self.ctx and self.callee(call) is not None):
                events = function_summaries.effects(target[0], target[1])
                if events:
                    found = (target[1], events)
        cache[key] = found
        return found

    def summary_through(self, call: ast.Call, env: _Env) -> tuple[ast.AST, tuple] | None:
        """Like :meth:`summary_of` for ``param.method(...)`` inside an inlined helper: the receiver is what the
        caller passed (``train(model, ...)`` with ``model = VSE(opt)``), so its class is known without a caller search."""
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return None
        passed, _ = _through_env(func.value, env)
        if passed is func.value:
            return None
        owner = value_origins.instance_class(self.ctx, passed, bind_params=False)
        if owner is None:
            return None
        method = value_origins.class_method(owner[0], owner[1], func.attr)
        if method is None:
            return None
        events = function_summaries.effects(method[0], method[1])
        return (method[1], events) if events else None

    def handed_optimizer(self, call: ast.Call, env: _Env | None = None) -> tuple[ast.AST, ObjectInfo] | None:
        """(argument, optimizer) when ``call`` hands a known optimizer to a training helper this scan cannot read:
        ``tnt.train(model=net, dataloader=loader, optimizer=joint_optimizer)`` where ``tnt`` is a module of the
        project missing from the scanned files. Such a helper almost surely steps it (an ``hands_optimizer`` event);
        a helper the scan can read is judged by its summary instead, and library calls are never counted."""
        name = call_method(call) or (call.func.id if isinstance(call.func, ast.Name) else "")
        if not _TRAINING_HELPER.search(name or ""):
            return None
        func = call.func
        head = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else (
            func.id if isinstance(func, ast.Name) else None)
        if head is None or head not in self.ctx.imports or not self._project_import(head):
            return None
        if value_origins.helper_definition(self.ctx, call) is not None:
            return None
        for arg in (*call.args, *(k.value for k in call.keywords)):
            if isinstance(arg, ast.Starred):
                continue
            info = self.object_of(arg, env)
            if info is not None and info.kind == "optimizer":
                return arg, info
        return None

    def callee(self, call: ast.Call) -> FunctionNode | None:
        """Like ``FileContext.callee_definition``, with the module's functions looked up in a dict."""
        func = call.func
        if isinstance(func, ast.Name):
            table = self.__dict__.get("_module_functions")
            if table is None:
                table = {}
                for node in self.ctx.tree.body:
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        table[node.name] = node  # the last definition wins, as at run time
                self.__dict__["_module_functions"] = table
            return table.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            return self.ctx.callee_definition(call)
        return None

    def module_value(self, name: str) -> ast.expr | None:
        """The last module-level value bound to ``name`` (notebook and script globals)."""
        table = self.__dict__.setdefault("_module_assignments", None)
        if table is None:
            table = self.ctx.assignments(self.ctx.tree)
            self.__dict__["_module_assignments"] = table
        entries = [v for _line, _stmt, v in table.get(name, []) if v is not None]
        return entries[-1] if entries else None

    def optimizers(self) -> list[ObjectInfo]:
        """Every optimizer construction in the file (computed once)."""
        if self._optimizers is not None:
            return self._optimizers
        found = []
        for call in self.ctx.calls():
            func = call.func
            last = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
            if not (last[:1].isupper() or last.startswith("create_optimizer")):
                continue  # optimizers are classes (or timm's factory): skip the alias lookup for everything else
            kind = classify_construction(self.ctx, call)
            if kind and kind[0] == "optimizer" and kind[1] not in {"optimizers"}:
                found.append(ObjectInfo("optimizer", f"@{call.lineno}:{call.col_offset}", call, kind[1]))
        self._optimizers = found
        return found


def mentions_training_events(text: str) -> bool:
    """The text calls an event method itself (``.backward(``, ``.step(``, ``.eval(``, ...); a file without
    any trains, if at all, only through helpers of other modules."""
    return _MAY_HAVE_EVENTS.search(text) is not None


def loop_model(ctx: FileContext) -> LoopModel:
    """The (cached) :class:`LoopModel` of ``ctx``."""
    model = ctx.__dict__.get("_training_step_model")
    if model is None:
        model = LoopModel(ctx)
        ctx.__dict__["_training_step_model"] = model
    return model


# -- building traces -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Env:
    """Parameter -> argument mapping of an inlined call, chained to the caller's."""

    params: dict[str, ast.AST]
    parent: _Env | None


def _through_env(expr: ast.AST, env: _Env | None) -> tuple[ast.AST, _Env | None]:
    """Replace a parameter name (or ``param.attr`` head) by the caller's argument expression."""
    while env is not None:
        if isinstance(expr, ast.Name) and expr.id in env.params:
            expr = env.params[expr.id]
            env = env.parent
            continue
        return expr, env
    return expr, None


def _text(expr: ast.AST | None, env: _Env | None) -> str | None:
    """Dotted text of ``expr`` with parameter heads replaced by caller arguments."""
    if expr is None:
        return None
    name = dotted(expr)
    if name is None:
        return ast.unparse(expr) if isinstance(expr, (ast.Subscript, ast.Call)) else None
    head, _, rest = name.partition(".")
    e = env
    while e is not None:
        if head in e.params:
            base = dotted(e.params[head]) or ast.unparse(e.params[head])
            name = f"{base}.{rest}" if rest else base
            head, _, rest = name.partition(".")
            e = e.parent
            continue
        break
    return name


@dataclass
class _State:
    loops: tuple[ast.AST, ...] = ()
    guards: tuple[Guard, ...] = ()
    contexts: tuple[str, ...] = ()
    trys: tuple[ast.Try, ...] = ()
    via: tuple[ast.Call, ...] = ()
    env: _Env | None = None
    closure: bool = False

    def but(self, **changes) -> _State:
        data = dict(self.__dict__)
        data.update(changes)
        return _State(**data)


class _TraceBuilder:
    def __init__(self, model: LoopModel, root: ast.AST) -> None:
        self.model = model
        self.ctx = model.ctx
        self.root = root
        self.trace = Trace(root)
        self.order = 0
        self.active: list[ast.AST] = [root]

    def build(self) -> Trace:
        body = self.root.body if isinstance(self.root, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else []
        state = _State()
        if isinstance(self.root, (ast.FunctionDef, ast.AsyncFunctionDef)):
            state = state.but(contexts=self._decorator_contexts(self.root))
            if self.root.name == "training_step" and self.ctx.enclosing_class(self.root) is not None:
                # Lightning: the framework loops over batches and calls training_step once per batch.
                state = state.but(loops=(self.root,))
                self.trace.loop_parent[self.root] = None
                self.trace.loop_via[self.root] = ()
        self._block(body, state)
        return self.trace

    def _decorator_contexts(self, func: FunctionNode) -> tuple[str, ...]:
        found = []
        for deco in func.decorator_list:
            qn = self.ctx.qualname(deco) or ""
            if qn in NO_GRAD:
                found.append("no_grad")
        return tuple(found)

    # -- statements ---------------------------------------------------------------------------
    def _block(self, stmts: list[ast.stmt], state: _State) -> None:
        for stmt in stmts:
            self._stmt(stmt, state)

    def _enter_loop(self, loop: ast.AST, state: _State) -> _State:
        parent = state.loops[-1] if state.loops else None
        self.trace.loop_parent.setdefault(loop, parent)
        self.trace.loop_via.setdefault(loop, state.via)
        return state.but(loops=state.loops + (loop,))

    def _stmt(self, stmt: ast.stmt, state: _State) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            self._exprs([stmt.iter], state)
            inner = self._enter_loop(stmt, state)
            self._block(stmt.body, inner)
            self._block(stmt.orelse, state)
            return
        if isinstance(stmt, ast.While):
            inner = self._enter_loop(stmt, state)
            self._exprs([stmt.test], inner)
            self._block(stmt.body, inner)
            self._block(stmt.orelse, state)
            return
        if isinstance(stmt, ast.If):
            flag = _bound_flag(stmt.test, state.env)
            if flag is not None:
                # `if not do_backward:` in a helper called with a literal flag: only that branch runs here
                self._block(stmt.body if flag else stmt.orelse, state)
                return
            self._exprs([stmt.test], state)
            depth = len(state.loops)
            self._block(stmt.body, state.but(guards=state.guards + (Guard(stmt, stmt.test, "body", depth),)))
            self._block(stmt.orelse, state.but(guards=state.guards + (Guard(stmt, stmt.test, "orelse", depth),)))
            return
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            contexts = list(state.contexts)
            for item in stmt.items:
                self._exprs([item.context_expr], state)
                kind = self._context_kind(item.context_expr, state.env)
                if kind:
                    contexts.append(kind)
            self._block(stmt.body, state.but(contexts=tuple(contexts)))
            return
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            inner = state.but(trys=state.trys + (stmt,))
            self._block(stmt.body, inner)
            for handler in stmt.handlers:
                self._block(handler.body, state)
            self._block(stmt.orelse, inner)
            self._block(stmt.finalbody, state)
            return
        if isinstance(stmt, ast.Match):
            self._exprs([stmt.subject], state)
            for case in stmt.cases:
                self._block(case.body, state)
            return
        if isinstance(stmt, ast.Assign):
            self._exprs([stmt.value], state)
            for target in stmt.targets:
                if self._is_grad_clear(target, stmt.value):
                    self._add("zero_grad", stmt, state, target=_text(target.value.value if isinstance(target.value, ast.Attribute) else target.value, state.env))
            return
        self._exprs([n for n in iter_children(stmt) if isinstance(n, ast.expr)], state)

    @staticmethod
    def _is_grad_clear(target: ast.AST, value: ast.AST) -> bool:
        """``p.grad = None`` (or ``= 0`` / zeros)."""
        return isinstance(target, ast.Attribute) and target.attr == "grad" and (
            (isinstance(value, ast.Constant) and value.value in (None, 0))
            or (isinstance(value, ast.Call) and (call_method(value) or dotted(value.func) or "").endswith("zeros_like"))
        )

    def _context_kind(self, expr: ast.AST, env: _Env | None) -> str | None:
        if not isinstance(expr, ast.Call):
            return None
        qn = self.ctx.qualname(expr) or ""
        if qn in NO_GRAD:
            return "no_grad"
        if qn in {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"}:
            flag = constant(expr.args[0]) if expr.args else ...
            if flag is False:
                return "no_grad"
            return None
        if qn in {"torch.enable_grad", "torch.autograd.enable_grad"}:
            return "enable_grad"
        if call_method(expr) in {"accumulate", "no_sync"}:
            return "accumulate" if call_method(expr) == "accumulate" else None
        return None

    # -- expressions and calls ----------------------------------------------------------------------
    def _exprs(self, exprs: list[ast.AST], state: _State) -> None:
        """Events of the calls in ``exprs``; a comprehension counts as a loop around the calls inside it."""
        calls: list[tuple[ast.Call, tuple[ast.AST, ...]]] = []
        for expr in exprs:
            stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(expr, ())]
            while stack:
                node, comps = stack.pop()
                if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                if isinstance(node, ast.Call):
                    calls.append((node, comps))
                if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                    # the first iterable runs outside the comprehension's own loop
                    stack.append((node.generators[0].iter, comps))
                    inner = comps + (node,)
                    for child in iter_children(node):
                        if not isinstance(child, ast.comprehension):
                            stack.append((child, inner))  # elt / key / value
                    for gen in node.generators:
                        stack.extend((c, inner) for c in gen.ifs)
                        if gen is not node.generators[0]:
                            stack.append((gen.iter, inner))
                    continue
                stack.extend((child, comps) for child in iter_children(node))
        # Python evaluates arguments before the call: inner calls end first.
        calls.sort(key=lambda item: (getattr(item[0], "end_lineno", 0), getattr(item[0], "end_col_offset", 0)))
        for call, comps in calls:
            inner = state
            for comp in comps:
                inner = self._enter_loop(comp, inner)
            self._call(call, inner)

    def _add(self, kind: str, node: ast.AST, state: _State, *, target: str | None = None, obj: ObjectInfo | None = None,
             loss: ast.AST | None = None, scaled: bool = False, arg: ast.AST | None = None) -> None:
        key = obj.key if obj is not None else target
        self.order += 1
        self.trace.events.append(
            Event(kind, node, target, key, obj, state.loops, state.guards, state.contexts, state.trys, state.via,
                  self.order, loss=loss, scaled=scaled, closure=state.closure, arg=arg)
        )

    def _call(self, call: ast.Call, state: _State) -> None:
        ctx = self.ctx
        method = call_method(call)
        qn = ctx.qualname(call) or ""
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        env = state.env

        if isinstance(receiver, ast.Name) and receiver.id == "self" and self.model.callee(call) is not None:
            # ``self.step(batch)`` / ``self.train_epoch()``: a method of this class, not a torch API
            self._helper(call, state)
            return
        if receiver is not None and not (isinstance(receiver, ast.Name) and receiver.id == "self") and self.model.summary_of(call, bind_params=False):
            # ``stepper.step(batch)``, ``model.val_start()``: a method of a class the project defines
            self._summarised(call, state)
            return
        if qn == "torch.autograd.backward":
            loss = argument(call, 0, "tensors")
            self._add("backward", call, state, target=_text(loss, env), loss=loss)
            return
        if method is None and isinstance(call.func, ast.Name) and call.func.id in _GRAD_CLEAR_FUNCTIONS:
            # ``zero_grad(model_params)``: a project helper named for what it does, often defined in another module
            self._add("zero_grad", call, state, target=_text(call.args[0], env) if call.args else None)
            return
        if method in {"zero_grad", "clear_grad", "clear_gradients"}:
            obj = self.model.object_of(receiver, env)
            self._add("zero_grad", call, state, target=_text(receiver, env), obj=obj)
            return
        if method in {"zero_", "fill_", "mul_"} and _is_grad_tensor(receiver) and (
            method == "zero_" or (call.args and constant(call.args[0]) == 0)
        ):
            # p.grad.zero_(), p.grad.data.zero_(), p.grad.fill_(0)
            self._add("zero_grad", call, state, target=_text(receiver, env))
            return
        if method in {"backward", "manual_backward"}:
            self._backward(call, receiver, method, state)
            return
        if method == "step" and receiver is not None:
            self._step(call, receiver, state)
            return
        if method in {"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_gradients"} or qn.endswith(
            ("clip_grad_norm_", "clip_grad_value_")
        ):
            self._add("clip", call, state, target=_text(receiver, env))
            return
        if method == "unscale_" and receiver is not None:
            opt_arg = argument(call, 0, "optimizer")
            self._add("unscale", call, state, target=_text(opt_arg, env), obj=self.model.object_of(opt_arg, env), arg=opt_arg)
            return
        if method == "update" and receiver is not None and not call.args and not call.keywords:
            obj = self.model.object_of(receiver, env)
            text = _text(receiver, env) or ""
            if (obj and obj.kind == "scaler") or _SCALER_NAME.search(text.rsplit(".", 1)[-1]):
                self._add("scaler_update", call, state, target=text, obj=obj)
            return
        if method in {"train", "eval"} and receiver is not None and not _not_module_mode(call):
            self._mode(call, receiver, method, state)
            return
        self._helper(call, state)

    def _helper(self, call: ast.Call, state: _State) -> None:
        if len(state.via) < INLINE_DEPTH:
            self._inline(call, state)
            return
        callee = self.model.callee(call)
        if callee is None and state.env is not None and isinstance(call.func, ast.Attribute):
            # past the inlining depth, a method called on what the caller passed in (`model.val_start()` in
            # `validate(model)`) is still replayed: its class is known through the caller, its summary is cached
            found = self.model.summary_through(call, state.env)
            if found:
                self._replay(call, state, found)
        elif callee is not None and callee in self.model.relevant:
            # A helper too deep to inline: rules that need an event to be *absent* stay silent here.
            self._add("opaque", call, state, target=dotted(call.func))

    def _backward(self, call: ast.Call, receiver: ast.AST | None, method: str, state: _State) -> None:
        env = state.env
        if receiver is None:
            return
        if method == "manual_backward":
            loss = argument(call, 0, "loss")
            self._add("backward", call, state, target=_text(loss, env), loss=loss)
            return
        # scaler.scale(loss).backward()
        if isinstance(receiver, ast.Call) and call_method(receiver) == "scale" and receiver.args:
            loss = receiver.args[0]
            self._add("backward", call, state, target=_text(loss, env), loss=loss, scaled=True)
            return
        text = _text(receiver, env) or ""
        if call.args and _ACCEL_NAME.search(text.rsplit(".", 1)[-1] if text else ""):
            loss = call.args[0]
            self._add("backward", call, state, target=_text(loss, env), loss=loss)
            return
        if isinstance(receiver, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.BinOp)):
            self._add("backward", call, state, target=text or None, loss=receiver)

    def _step(self, call: ast.Call, receiver: ast.AST, state: _State) -> None:
        env = state.env
        obj = self.model.object_of(receiver, env)
        text = _text(receiver, env) or ""
        last = text.rsplit(".", 1)[-1]
        if obj is not None and obj.kind == "scaler" or (obj is None and _SCALER_NAME.search(last) and call.args):
            opt_arg = argument(call, 0, "optimizer")
            opt_obj = self.model.object_of(opt_arg, env)
            self._add("step", call, state, target=_text(opt_arg, env), obj=opt_obj, arg=opt_arg, scaled=True)
            return
        if obj is not None and obj.kind == "scheduler" or (obj is None and _SCHED_NAME.search(last)):
            self._add("sched_step", call, state, target=text, obj=obj)
            return
        if obj is not None and obj.kind == "optimizer" or (obj is None and _OPT_NAME.search(last)):
            closure = argument(call, 0, "closure")
            if closure is not None:
                self._closure(closure, state)
            self._add("step", call, state, target=text, obj=obj)
            return

    def _closure(self, closure: ast.AST, state: _State) -> None:
        """Inline the closure given to ``optimizer.step(closure)`` (LBFGS and friends)."""
        if isinstance(closure, ast.Lambda):
            self._exprs([closure.body], state.but(closure=True))
            return
        if isinstance(closure, ast.Name):
            scope = self.ctx.enclosing_function(closure) or self.ctx.tree
            for node in self.ctx.walk_scope(scope) if scope is not None else []:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == closure.id:
                    if node not in self.active:
                        self.active.append(node)
                        self._block(node.body, state.but(closure=True))
                        self.active.pop()
                    return
            func = self.ctx.module_function(closure.id)
            if func is not None and func not in self.active:
                self.active.append(func)
                self._block(func.body, state.but(closure=True))
                self.active.pop()

    def _mode(self, call: ast.Call, receiver: ast.AST, method: str, state: _State) -> None:
        text = _text(receiver, state.env) or ""
        if "trainer" in text.lower() or isinstance(receiver, ast.Constant):
            return  # ``trainer.train()`` runs a whole training job; it is not Module.train
        kind = method
        if method == "train" and call.args:
            flag = constant(call.args[0])
            if flag is False:
                kind = "eval"
            elif flag is not True:
                kind = "train"  # train(mode): treat as restoring training mode
        elif method == "train" and call.keywords:
            flag = constant(keyword(call, "mode"))
            if flag is False:
                kind = "eval"
        if method == "eval" and (call.args or call.keywords):
            return  # not nn.Module.eval (which takes no arguments)
        self._add(kind, call, state, target=text)

    def _inline(self, call: ast.Call, state: _State) -> None:
        func = self.model.callee(call)
        if func is None:
            self._summarised(call, state)
            return
        if func in self.active or func not in self.model.relevant:
            return
        if self._is_method_call_outside(func, call):
            return
        params = _bind(func, call)
        self.active.append(func)
        inner = state.but(via=state.via + (call,), env=_Env(params, state.env), contexts=state.contexts + self._decorator_contexts(func))
        self._block(func.body, inner)
        self.active.pop()

    def _summarised(self, call: ast.Call, state: _State) -> None:
        """A call into another module or a method of an instance: replay its summary at the call site."""
        found = self.model.summary_of(call, bind_params=False)  # binding a parameter costs a caller search per call
        if not found and state.env is not None:
            found = self.model.summary_through(call, state.env)
        if found:
            self._replay(call, state, found)
            return
        handed = self.model.handed_optimizer(call, state.env)
        if handed is not None:
            self._add("hands_optimizer", call, state, target=_text(handed[0], state.env), obj=handed[1])

    def _replay(self, call: ast.Call, state: _State, found: tuple[ast.AST, tuple]) -> None:
        callee, events = found
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        inner = state.but(via=state.via + (call,))
        for effect in events:
            if effect.subject == "self":
                subject = receiver
            elif effect.subject is not None:
                subject = value_origins.argument_for(call, callee, effect.subject)
            else:
                subject = None
            target = _text(subject, state.env) if subject is not None else None
            obj = self.model.object_of(subject, state.env) if subject is not None and effect.kind in {"step", "zero_grad"} else None
            self._add(effect.kind, call, inner, target=target, obj=obj)

    @staticmethod
    def _is_method_call_outside(func: FunctionNode, call: ast.Call) -> bool:
        return False


def _not_module_mode(call: ast.Call) -> bool:
    """``tnt.train(model=net, dataloader=loader)``: more than ``Module.train``'s one ``mode`` flag, so a helper."""
    return len(call.args) > 1 or any(k.arg != "mode" for k in call.keywords)


def _is_grad_tensor(node: ast.AST | None) -> bool:
    """``p.grad`` or ``p.grad.data`` (what in-place zeroing of gradients acts on)."""
    while isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "grad"


def _bound_flag(test: ast.AST, env: _Env | None) -> bool | None:
    """The value of ``flag`` / ``not flag`` when ``flag`` is a parameter of the inlined helper that the call
    site fills with ``True``/``False`` (or leaves at such a default); None otherwise."""
    negate = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, not negate
    if env is None or not isinstance(test, ast.Name) or test.id not in env.params:
        return None
    value = env.params[test.id]
    if not (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
        return None
    return value.value != negate


def _bind(func: FunctionNode, call: ast.Call) -> dict[str, ast.AST]:
    """Map ``func``'s parameter names to the argument expressions of ``call`` (and boolean parameters the call
    leaves out to their ``True``/``False`` default)."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if params and params[0] in {"self", "cls"} and isinstance(call.func, ast.Attribute):
        params = params[1:]
    mapping: dict[str, ast.AST] = {}
    for name, arg in zip(params, call.args):
        if isinstance(arg, ast.Starred):
            break
        mapping[name] = arg
    known = set(params) | {a.arg for a in func.args.kwonlyargs}
    for kw in call.keywords:
        if kw.arg and kw.arg in known:
            mapping[kw.arg] = kw.value
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return mapping  # *args / **kwargs: what is left out is unknown
    positional = [*func.args.posonlyargs, *func.args.args]
    defaults = list(zip(positional[len(positional) - len(func.args.defaults):], func.args.defaults))
    defaults += [(a, d) for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults) if d is not None]
    for arg, default in defaults:
        if arg.arg not in mapping and isinstance(default, ast.Constant) and isinstance(default.value, bool):
            mapping[arg.arg] = default
    return mapping


# -- queries shared by several rules ---------------------------------------------------------


def step_loops(trace: Trace) -> list[ast.AST]:
    """Loops whose own iteration (not a nested loop) performs an optimizer step: the batch loops."""
    found: list[ast.AST] = []
    for event in trace.events:
        if event.kind == "step" and event.loops and event.loops[-1] not in found:
            found.append(event.loops[-1])
    return found


def is_loop_invariant_guard(guard: Guard, loop: ast.AST) -> bool:
    """An ``if`` whose test cannot change from one iteration of ``loop`` to the next.

    ``if phase == "train":`` inside ``for batch in loader`` (``phase`` set by an outer loop) is
    taken on every batch or on none: an event under it keeps the loop's frequency. Only tests
    made of names, constants, comparisons and attributes of names other than ``self`` count,
    and none of the names may be bound inside the loop; a call or ``self.x`` could change.
    """
    bound: set[str] = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
    for node in ast.walk(guard.test):
        if isinstance(node, (ast.Call, ast.NamedExpr, ast.Await, ast.Subscript, ast.Lambda)):
            return False
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return False
        if isinstance(node, ast.Name) and node.id in bound:
            return False
    return True


def is_accumulation_guard(guard: Guard) -> bool:
    """An ``if`` whose test uses ``%`` (``(i + 1) % accum == 0``): a step taken every N iterations."""
    return guard.branch == "body" and any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(guard.test)
    )


def same_object(a: Event, b: Event) -> bool:
    """Whether two events act on the same optimizer (unknown identities match only by text)."""
    if a.key is None or b.key is None:
        return False
    return a.key == b.key


def dedupe(findings: Iterator) -> Iterator:
    """Drop findings repeated at the same (rule, line, message start) — helpers are seen from several roots."""
    seen: set[tuple] = set()
    for finding in findings:
        key = (finding.rule, finding.location.line, finding.location.column)
        if key in seen:
            continue
        seen.add(key)
        yield finding
