"""The script runner: run a user's training script *unmodified* under observation.

Runs inside the child (stdlib + torch only; siblings imported by bare name;
never imports ``mlsleuth``). Shared by ``trace`` and ``nan``.

Stable API
----------
::

    import run_user_script
    payload = run_user_script.run(script, argv, observers=[MyObserver()], max_steps=20,
                                  extra={"config": ...})

``run`` does, in order:

1. installs the patches listed below on torch (from the outside; the script's
   source is never touched) and calls ``observer.on_start(runner)``;
2. executes the script with :func:`runpy.run_path` as ``__main__``:
   ``sys.argv = [script, *argv]``, ``sys.path[0]`` = the script's folder, the
   working directory left as the parent chose it (the user's own cwd);
3. counts optimizer steps; after ``max_steps`` steps of the *primary* optimizer
   (the first one whose ``step()`` is called) it raises :class:`observer.StopTraining`
   from inside ``step()``. StopTraining is a BaseException, so ``except Exception``
   in the script cannot swallow it; if the script swallows it anyway (bare
   ``except:``), every later ``step()`` raises it again before updating anything;
4. calls ``observer.on_end(runner, reason)`` and writes the result with
   ``channel.write_result`` *whatever happened* (user exception, ``sys.exit``,
   non-finite stop), then removes the patches. ``reason`` is one of
   ``'finished'`` (script ran to its end), ``'max-steps'``, ``'exception'``,
   ``'exit'`` (``sys.exit`` with a non-zero code), or a reason an observer gave to
   :meth:`Runner.request_stop` (e.g. ``'non-finite'``).

The payload written (and returned)::

    {"status": reason, "steps": int, "last_good_step": int | None,
     "max_steps": int, "exception": None | {"type", "message", "traceback"},
     "exit_code": int | None, "observers": {observer.name: observer.result()},
     "observer_errors": [{"observer", "hook", "traceback"}],
     "environment": {"python", "torch", "cuda_available", "devices_used"},
     **extra}

Patches installed (all removed on exit)
---------------------------------------
* ``torch.optim.Optimizer`` global step pre/post hooks (``on_step_start`` /
  ``on_step_end``), ``Optimizer.__init__`` (records ``runner.optimizers``),
  ``Optimizer.zero_grad`` and ``nn.Module.zero_grad`` (``on_zero_grad``);
* ``torch.Tensor.backward`` and ``torch.autograd.backward`` (``on_backward_start``
  / ``on_backward_end``; a backward nested in another is reported once);
* LR schedulers: ``step`` of every scheduler class constructed, patched on the class
  that defines it (``on_scheduler_step``; the constructor's own initial step is not
  reported; nothing is stored on the instance, so ``state_dict()`` stays picklable);
* global module forward pre/post hooks (maintain ``runner.module_stack``; call
  ``on_module_forward``) - installed only when an observer overrides
  ``on_module_forward`` or sets ``wants_module_stack = True``, because they cost
  time on every module call; the forwards of modules inside a model (``module_stack``
  not empty) reach only the observers whose ``inner_forwards`` is true (the default);
  an observer that watches whole models only sets it False; an observer past its window
  calls ``runner.narrow_forwards(self, scope)`` to stop getting forwards it no longer reads;
* ``torch.compile``: compiled code runs eagerly while observed, and the forward hooks skip the
  compile wrapper (its ``_orig_mod`` is the root); see ``compile_guard``;
* ``nn.Module.train`` (and so ``eval``): ``on_mode_change`` for the outermost call only;
* any extra ``(owner, attribute, wrapper_factory)`` an observer lists in its
  ``patches`` attribute: ``setattr(owner, attribute, wrapper_factory(runner, original))``.
  This is how an observer instruments e.g. ``torch.nn.functional.cross_entropy``.

Writing an observer
-------------------
Subclass :class:`observer.Observer`, give it a unique ``name``, override the hooks
you need and return JSON-ready data from ``result()``. Hooks must be cheap and
must not raise: the runner catches their exceptions, records them in
``observer_errors`` and carries on. A hook is called only on the observers whose
class (or instance) overrides it, looked up once per hook (they run on every step). To end the run early call
``runner.request_stop(reason)``; the runner raises StopTraining at the next hook
boundary. Useful runner state: ``runner.step`` (completed primary steps),
``runner.phase``, ``runner.optimizers``, ``runner.roots`` (top-level modules with
parameters that ran a forward), ``runner.module_stack``, ``runner.forward_kwargs`` (the keyword inputs
of the forward ``on_module_forward`` reports), ``runner.module_name(m)``,
``runner.param_names(root)``, ``runner.original(owner, attribute)`` (the unpatched
callable) and ``runner.suspended()`` (a context manager that turns all observer
callbacks off, for running extra forwards/backwards of your own).

A harness entry script (e.g. ``trace_main.py``) reads its config from a JSON file
whose path is ``sys.argv[1]``, builds its observers and calls :func:`run`.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from typing import Any

import channel
import closure_steps
from compile_guard import WRAPPER_TYPES as COMPILE_WRAPPERS
from compile_guard import EagerCompile, is_compile_wrapper
from observer import Observer, StopTraining

TRACEBACK_LIMIT = 8000  # characters of the user's traceback kept


ACTIVE_RUNNER: Any = None  # the runner of the run in progress (a forked rank removes its parent's patches with it)
WRAPPER_TYPES = ("DataParallel", "DistributedDataParallel")  # their submodules are named "module.<name>"
FORWARD_SCOPES = ("all", "unregistered", "outer", "none")  # widest first: see Runner.narrow_forwards


def _path_in_calling_model(module: Any, max_frames: int = 80) -> str:
    """The dotted path of ``module`` inside the model whose method is running it, when that model's own forward
    hooks never fired (``model.forward(x)``, ``model.loss(x)``, a Lightning ``training_step`` calling
    ``self.encoder(x)``): found by walking up the Python stack to frames whose ``self`` is an ``nn.Module`` holding
    it, the outermost such model last (torch.compile's wrapper does not count: its model is the one compiled).
    '' when no calling model holds it (a model called from the script)."""
    import torch

    path, inner = "", module
    frame = sys._getframe(2)
    for _ in range(max_frames):
        if frame is None:
            break
        owner = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
        if type(owner).__name__ in COMPILE_WRAPPERS and is_compile_wrapper(owner):
            owner = None  # torch.compile's wrapper: its _orig_mod is the model itself, named as such
        if isinstance(owner, torch.nn.Module) and owner is not inner:
            try:
                name = next((n for n, sub in owner.named_modules() if sub is inner and n), None)
            except Exception:  # noqa: BLE001 - a model whose named_modules misbehaves holds nothing we can name
                name = None
            if name:
                path, inner = f"{name}.{path}" if path else name, owner
        frame = frame.f_back
    return path


def unwrap(module: Any) -> Any:
    """The model inside a data-parallel wrapper (names then read as the user's model names them), else ``module``."""
    inner = getattr(module, "module", None) if type(module).__name__ in WRAPPER_TYPES else None
    return inner if inner is not None and hasattr(inner, "named_modules") else module


def _param_ids(opt: Any) -> set[int]:
    try:
        return {id(p) for g in opt.param_groups for p in g["params"]}
    except (AttributeError, KeyError, TypeError):
        return set()


def _shares_params(candidate: Any, primary: Any) -> bool:
    """Whether ``candidate`` optimizes any tensor that ``primary`` does."""
    owned = _param_ids(primary)
    try:
        return any(id(p) in owned for g in candidate.param_groups for p in g["params"])
    except (AttributeError, KeyError, TypeError):
        return False


class Runner:
    """State shared with observers while the script runs."""

    def __init__(self, observers: list[Observer], max_steps: int | None) -> None:
        self.observers = list(observers)
        self.max_steps = max_steps
        self.step = 0
        self.phase = "setup"
        self.optimizers: list[Any] = []
        self.primary_optimizer: Any = None
        self.optimizer_replacements: list[int] = []  # steps at which a new optimizer took over the primary's parameters
        self.roots: list[Any] = []
        self.module_stack: list[Any] = []
        self.forward_kwargs: dict[str, Any] = {}  # keyword inputs of the forward on_module_forward reports
        self.observer_errors: list[dict[str, str]] = []
        self.devices_used: set[str] = set()
        self._stop_reason: str | None = None
        self._stopping = False
        self._muted = 0
        self._backward_depth = 0
        self.backward_args: tuple = ((), {})
        self._train_depth = 0
        self._originals: list[tuple[Any, str, Any, bool]] = []
        self._handles: list[Any] = []
        self._names: dict[int, tuple[Any, str]] = {}
        self._root_ids: set[int] = set()
        self._paramless: dict[int, list] = {}  # id -> [module, forwards seen without parameters] (loss modules)
        self._root_labels: dict[int, str] = {}
        self._root_paths: dict[int, str] = {}  # id(root) -> its path inside the model whose method called it
        self._patched_sched: set[type] = set()
        self._sched_init_depth = 0
        self._sched_step_depth = 0
        self.compile_guard = EagerCompile()  # torch.compile'd code runs eagerly under observation (see compile_guard)
        self._pending_step_start: Any = None  # an optimizer whose step started but is not announced yet (closure)
        self.after_window: Any = None  # after_window.AfterWindow: the script runs on, unobserved, after max_steps
        self.finish_window: Any = None  # set by run(): the observers' on_end and results at the end of the window
        self._step_handles: list[Any] = []
        self._listeners: dict[str, list] = {}  # hook -> [(observer, bound method)] of the observers overriding it
        self._forward_scopes: dict[int, str] = {}  # id(observer) -> the forwards it still wants (narrow_forwards)

    # -- for observers ---------------------------------------------------------
    def record_error(self, observer: str, hook: str) -> None:
        """Record the exception being handled as an observer failure (shown to the user as an internal error)."""
        if len(self.observer_errors) < 20:
            self.observer_errors.append({"observer": observer, "hook": hook, "traceback": traceback.format_exc()[-3000:]})

    def request_stop(self, reason: str) -> None:
        """Ask the runner to stop the script at the next hook boundary."""
        if self._stop_reason is None:
            self._stop_reason = reason

    def module_name(self, module: Any) -> str:
        """Dotted path of ``module`` inside the root model that contains it ('' for a root)."""
        entry = self._names.get(id(module))
        if entry is not None and entry[0] is module:
            return entry[1]
        return type(module).__name__

    def root_label(self, root: Any) -> str:
        """A readable name for a root model: the script's global variable bound to it, else its class name."""
        label = self._root_labels.get(id(root))
        if label is None:
            main = sys.modules.get("__main__")
            names = [k for k, v in vars(main).items() if v is root and not k.startswith("_")] if main is not None else []
            label = names[0] if names else type(root).__name__
            if label in self._root_labels.values():
                label = f"{label}#{len(self._root_labels)}"
            self._root_labels[id(root)] = label
        return label

    def root_prefix(self, root: Any, several: bool) -> str:
        """What a root's own parameter and module names are prefixed with: its label when there are ``several``
        roots or when it runs inside another model's method (``'R.'`` for ``self.R`` of a model whose ``forward``
        was called directly), else nothing."""
        return f"{self.root_label(root)}." if several or id(root) in self._root_paths else ""

    def param_names(self, root: Any) -> dict[int, str]:
        """``{id(parameter): dotted name}`` for a root model."""
        return {id(p): n for n, p in unwrap(root).named_parameters()}

    def original(self, owner: Any, attribute: str) -> Any:
        for own, attr, value, _had in self._originals:
            if own is owner and attr == attribute:
                return value
        return getattr(owner, attribute)

    @contextlib.contextmanager
    def suspended(self):
        """Observers are not called inside this block (for an observer's own extra passes)."""
        self._muted += 1
        try:
            yield
        finally:
            self._muted -= 1

    # -- dispatch ----------------------------------------------------------------
    def notify(self, hook: str, *args: Any) -> None:
        if self._muted:
            return
        listeners = self._listeners.get(hook)
        if listeners is None:
            listeners = self._find_listeners(hook)
        if listeners:
            self._dispatch(hook, listeners, args)
        else:
            self._stop_if_asked()

    def notify_forward(self, module: Any, inputs: Any, output: Any, inner: bool) -> None:
        """``on_module_forward`` to the observers whose forward scope (see :meth:`narrow_forwards`) covers this module."""
        if self._muted:
            return
        listeners = self.forward_listeners(module, inner)
        if listeners:
            self._dispatch("on_module_forward", listeners, (module, inputs, output))
        else:
            self._stop_if_asked()

    def forward_listeners(self, module: Any, inner: bool) -> list:
        """``[(observer, bound on_module_forward)]`` for a forward of ``module`` (``inner``: inside a model's forward)."""
        key = ("on_module_forward:all" if id(module) in self._names else "on_module_forward:unregistered") if inner else "on_module_forward"
        listeners = self._listeners.get(key)
        return self._find_listeners(key) if listeners is None else listeners

    def narrow_forwards(self, observer: Observer, scope: str) -> None:
        """Which module forwards ``observer.on_module_forward`` gets from now on (an observer past its window says so).

        ``'all'`` (the default; ``inner_forwards = False`` starts at ``'outer'``); ``'outer'``: only forwards called
        outside any model's forward (whole models, loss modules); ``'unregistered'``: those, and the modules run inside a
        model that are no submodule of any model seen; ``'none'``. Every forward hook keeps running (the module stack
        stays exact); only the observer's calls stop, so it must only narrow once it would return at once anyway.
        """
        if scope not in FORWARD_SCOPES:
            raise ValueError(f"forward scope {scope!r}: expected one of {FORWARD_SCOPES}")
        if self._forward_scopes.get(id(observer)) == scope:
            return
        self._forward_scopes[id(observer)] = scope
        for key in [k for k in self._listeners if k.startswith("on_module_forward")]:
            del self._listeners[key]  # found again on the next forward; a dispatch in progress keeps its own list

    def _forward_scope(self, observer: Observer) -> str:
        scope = self._forward_scopes.get(id(observer))
        return scope if scope is not None else ("all" if getattr(observer, "inner_forwards", True) else "outer")

    def _find_listeners(self, key: str) -> list:
        """The observers that override a hook, with their bound methods (found once per hook: hooks run per step)."""
        hook, _, where = key.partition(":")
        base = getattr(Observer, hook, None)
        scopes = FORWARD_SCOPES[: FORWARD_SCOPES.index(where or "outer") + 1] if hook == "on_module_forward" else FORWARD_SCOPES
        found = [(obs, getattr(obs, hook)) for obs in self.observers
                 if (base is None or getattr(type(obs), hook, None) is not base or hook in getattr(obs, "__dict__", {}))
                 and self._forward_scope(obs) in scopes]
        self._listeners[key] = found
        return found

    def _stop_if_asked(self) -> None:
        if self._stop_reason is not None and not self._stopping:
            self._stopping = True
            raise StopTraining(self._stop_reason)

    def _dispatch(self, hook: str, listeners: list, args: tuple) -> None:
        self._muted += 1  # observers' own torch calls do not re-enter the hooks
        try:
            for obs, method in listeners:
                try:
                    method(self, *args)
                except StopTraining:
                    raise
                except Exception:  # noqa: BLE001 - an observer bug must not break the user's run; it is recorded
                    if len(self.observer_errors) < 20:
                        self.observer_errors.append(
                            {"observer": obs.name, "hook": hook, "traceback": traceback.format_exc()[-3000:]}
                        )
        finally:
            self._muted -= 1
        if self._stop_reason is not None and not self._stopping:
            self._stop_if_asked()

    def _register_root(self, module: Any) -> None:
        if id(module) in self._root_ids:
            return
        seen = self._paramless.get(id(module))
        if seen is not None and seen[0] is module and seen[1] >= 2:
            return  # called twice without parameters (a loss module, every step): not walked again
        try:
            has_params = next(module.parameters(), None) is not None
        except Exception:  # noqa: BLE001 - a module whose parameters() misbehaves is simply not a root
            has_params = False
        if not has_params:  # twice, not once: a model that builds its layers in its first forward has none before it
            if seen is not None and seen[0] is module:
                seen[1] += 1
            elif len(self._paramless) < 1000:
                self._paramless[id(module)] = [module, 1]
            return
        self._root_ids.add(id(module))
        self.roots.append(module)
        path = _path_in_calling_model(module)  # model.forward(x) / model.loss(x) / a Lightning step calling self.net(x)
        if path:
            self._root_paths[id(module)] = path
            self._root_labels.setdefault(id(module), path)
        self._names.setdefault(id(module), (module, path))
        for name, sub in unwrap(module).named_modules():
            self._names.setdefault(id(sub), (sub, f"{path}.{name}" if path and name else name or path))

    # -- patching -----------------------------------------------------------------
    def _patch(self, owner: Any, attribute: str, new: Any) -> None:
        had = attribute in vars(owner) if isinstance(owner, type) else hasattr(owner, attribute)
        self._originals.append((owner, attribute, getattr(owner, attribute), had))
        setattr(owner, attribute, new)

    def install(self) -> None:
        import torch
        import torch.optim.lr_scheduler as lrs
        from torch.nn.modules import module as module_mod
        from torch.optim import optimizer as optim_mod

        runner = self
        self.compile_guard.install()

        # optimizer creation, zero_grad, step
        orig_opt_init = torch.optim.Optimizer.__init__

        def opt_init(opt, *args, **kwargs):
            orig_opt_init(opt, *args, **kwargs)
            if all(o is not opt for o in runner.optimizers):
                runner.optimizers.append(opt)

        self._patch(torch.optim.Optimizer, "__init__", opt_init)

        orig_opt_zero = torch.optim.Optimizer.zero_grad

        def opt_zero_grad(opt, *args, **kwargs):
            out = orig_opt_zero(opt, *args, **kwargs)
            runner.notify("on_zero_grad", opt)
            return out

        self._patch(torch.optim.Optimizer, "zero_grad", opt_zero_grad)

        orig_mod_zero = torch.nn.Module.zero_grad

        def mod_zero_grad(mod, *args, **kwargs):
            out = orig_mod_zero(mod, *args, **kwargs)
            runner.notify("on_zero_grad", mod)
            return out

        self._patch(torch.nn.Module, "zero_grad", mod_zero_grad)

        def step_pre(opt, args, kwargs):
            if runner.after_window is not None and runner.after_window.active:
                runner.after_window.before_step(opt)  # frozen parameters only (after_frozen); nothing else is observed
                return None
            if runner.primary_optimizer is None:
                runner.primary_optimizer = opt
            elif opt is not runner.primary_optimizer and _shares_params(opt, runner.primary_optimizer):
                # A new optimizer over (some of) the primary's parameters replaces it: a rebuilt
                # optimizer, or a second training stage. Follow the new one and count how often it
                # happens. A second optimizer over other parameters (a GAN's) is not a replacement.
                runner.primary_optimizer = opt
                runner.optimizer_replacements.append(runner.step)
            if runner._stopping:  # the script swallowed StopTraining: do not let it train on
                raise StopTraining(runner._stop_reason or "max-steps")
            runner._pending_step_start = opt
            deferred = closure_steps.defer_step_start(args, kwargs, lambda: runner._begin_step(opt))
            if deferred is not None:  # forward and backward run inside step(): announce the step after them
                return deferred
            runner._begin_step(opt)
            return None

        def step_post(opt, args, kwargs):
            if runner.after_window is not None and runner.after_window.active:
                runner.after_window.after_step(opt)
                runner.after_window.check_deadline()
                return
            if runner._pending_step_start is opt:  # a closure step() never called its closure
                runner._begin_step(opt)
            primary = opt is runner.primary_optimizer
            if primary:
                runner.step += 1
                channel.progress(f"step {runner.step}", done=runner.step, total=runner.max_steps, step=runner.step)
            runner.notify("on_step_end", opt)
            runner.phase = "data"
            if primary and runner.max_steps is not None and runner.step >= runner.max_steps:
                if runner.after_window is not None and runner.after_window.begin(runner, runner.finish_window):
                    return  # the script runs on unobserved for a short budget (after_window)
                runner.request_stop("max-steps")
                runner._stopping = True
                raise StopTraining("max-steps")

        self._step_handles = [optim_mod.register_optimizer_step_pre_hook(step_pre),
                              optim_mod.register_optimizer_step_post_hook(step_post)]
        self._handles.extend(self._step_handles)

        # backward
        orig_tensor_backward = torch.Tensor.backward
        orig_autograd_backward = torch.autograd.backward

        def tensor_backward(tensor, *args, **kwargs):
            return runner._backward(orig_tensor_backward, tensor, (tensor, *args), kwargs)

        def autograd_backward(tensors, *args, **kwargs):
            return runner._backward(orig_autograd_backward, tensors, (tensors, *args), kwargs)

        self._patch(torch.Tensor, "backward", tensor_backward)
        self._patch(torch.autograd, "backward", autograd_backward)

        # LR schedulers: patch `step` on the class that defines it, for every scheduler class
        # constructed (never on the instance: scheduler.state_dict() copies the instance __dict__,
        # and a closure there would break torch.save). The constructor's own initial step() is
        # not reported.
        def wrap_step(cls):
            owner = next((c for c in cls.__mro__ if "step" in vars(c)), None)
            if owner is None or owner in runner._patched_sched:
                return
            runner._patched_sched.add(owner)
            orig_step = vars(owner)["step"]

            def step(sched, *a, **k):
                runner._sched_step_depth += 1  # a subclass's step() calling super().step() reports once
                try:
                    out = orig_step(sched, *a, **k)
                finally:
                    runner._sched_step_depth -= 1
                if not runner._sched_init_depth and not runner._sched_step_depth:
                    runner.notify("on_scheduler_step", sched)
                return out

            self._patch(owner, "step", step)

        def wrap_scheduler_init(cls):
            orig_init = cls.__init__

            def sched_init(sched, *args, **kwargs):
                wrap_step(type(sched))
                runner._sched_init_depth += 1
                try:
                    orig_init(sched, *args, **kwargs)
                finally:
                    runner._sched_init_depth -= 1

            self._patch(cls, "__init__", sched_init)

        base = getattr(lrs, "LRScheduler", None) or lrs._LRScheduler
        wrap_scheduler_init(base)
        plateau = lrs.ReduceLROnPlateau
        if not issubclass(plateau, base) or "__init__" in vars(plateau):
            wrap_scheduler_init(plateau)

        # train / eval
        orig_train = torch.nn.Module.train

        def train(mod, mode=True):
            runner._train_depth += 1
            try:
                out = orig_train(mod, mode)
            finally:
                runner._train_depth -= 1
            if runner._train_depth == 0:
                runner.notify("on_mode_change", mod, bool(mode))
            return out

        self._patch(torch.nn.Module, "train", train)

        # global forward hooks, only when someone listens
        wants_forward = any(
            type(o).on_module_forward is not Observer.on_module_forward or getattr(o, "wants_module_stack", False)
            for o in self.observers
        )
        if wants_forward:
            stack = self.module_stack

            def pre_hook(mod, inputs):
                if type(mod).__name__ in COMPILE_WRAPPERS and is_compile_wrapper(mod):  # torch.compile's wrapper: its _orig_mod is the model
                    return
                if not stack and not runner._muted:
                    runner._register_root(mod)
                    if runner.phase in ("setup", "data", "optimizer"):
                        runner.phase = "forward"
                stack.append(mod)

            def post_hook(mod, inputs, *rest):
                if type(mod).__name__ in COMPILE_WRAPPERS and is_compile_wrapper(mod):
                    return
                if stack and stack[-1] is mod:
                    stack.pop()
                elif mod in stack:  # an inner forward raised; drop what it left behind
                    del stack[stack.index(mod):]
                if runner._muted:
                    return
                if stack:  # inside a model: a registered submodule, or one no model holds
                    key = "on_module_forward:all" if id(mod) in runner._names else "on_module_forward:unregistered"
                else:
                    key = "on_module_forward"
                listeners = runner._listeners.get(key)
                if listeners is None:
                    listeners = runner._find_listeners(key)
                if not listeners:  # every observer is past its window for this kind of module: nothing to call
                    if runner._stop_reason is not None and not runner._stopping:
                        runner._stop_if_asked()
                    return
                runner.forward_kwargs = rest[0] if len(rest) == 2 else {}  # model(input_ids=..., labels=...)
                try:
                    runner._dispatch("on_module_forward", listeners, (mod, inputs, rest[-1]))
                finally:
                    runner.forward_kwargs = {}

            self._handles.append(module_mod.register_module_forward_pre_hook(pre_hook))
            try:
                self._handles.append(module_mod.register_module_forward_hook(post_hook, with_kwargs=True, always_call=True))
            except TypeError:  # older torch
                self._handles.append(module_mod.register_module_forward_hook(post_hook))

        # observers' own patches
        for obs in self.observers:
            for owner, attribute, factory in getattr(obs, "patches", ()):
                self._patch(owner, attribute, factory(self, getattr(owner, attribute)))

    def _begin_step(self, opt: Any) -> None:
        self._pending_step_start = None
        self.phase = "optimizer"
        self.notify("on_step_start", opt)

    def _backward(self, original, roots, args, kwargs):
        if self._backward_depth or self._muted:
            return original(*args, **kwargs)
        self._backward_depth += 1
        self.backward_args = (args, kwargs)  # the call's own arguments (``inputs=`` limits what it reaches)
        try:
            self.phase = "backward"
            self.notify("on_backward_start", roots)
            out = original(*args, **kwargs)
            self.notify("on_backward_end", roots)
            return out
        finally:
            self._backward_depth -= 1

    def uninstall(self, keep_step_hooks: bool = False) -> None:
        """Remove every patch and hook; ``keep_step_hooks``: not the optimizer step hooks (removing them from
        inside one would change the hooks torch is iterating over; they do nothing once the window is over)."""
        self.compile_guard.uninstall()
        kept = [h for h in self._handles if keep_step_hooks and any(h is k for k in self._step_handles)]
        for handle in reversed(self._handles):
            if not any(handle is k for k in kept):
                handle.remove()
        self._handles = kept
        for owner, attribute, value, had in reversed(self._originals):
            if had or not isinstance(owner, type):
                setattr(owner, attribute, value)
            else:
                with contextlib.suppress(AttributeError):
                    delattr(owner, attribute)
        self._originals.clear()


def exception_info(exc: BaseException) -> dict[str, str]:
    """Type, message and traceback of the user's exception, without the runner's own frames on top."""
    tb = exc.__traceback__
    while tb is not None and (tb.tb_frame.f_code.co_filename == __file__ or "runpy" in tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    text = "".join(traceback.format_exception(type(exc), exc, tb if tb is not None else exc.__traceback__))
    info: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc)[:2000], "traceback": text[-TRACEBACK_LIMIT:]}
    frame = user_frame(exc)
    if frame is not None:
        info["user_frame"] = frame
    return info


def _library_folders() -> tuple[str, ...]:
    import site
    import sysconfig

    folders = {os.path.dirname(os.path.abspath(__file__))}  # this harness
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if sysconfig.get_paths().get(key):
            folders.add(os.path.abspath(sysconfig.get_paths()[key]))
    with contextlib.suppress(AttributeError):  # some embedded interpreters lack getsitepackages
        folders.update(os.path.abspath(p) for p in site.getsitepackages())
    return tuple(f.rstrip(os.sep) + os.sep for f in folders)


def user_frame(exc: BaseException) -> dict[str, Any] | None:
    """The innermost frame of the traceback in the user's own code (not Python's, a library's or this harness's).

    ``{"file", "line", "function", "code"}``, the file relative to the working directory when under it.
    """
    libraries = _library_folders()
    found = None
    for summary in traceback.extract_tb(exc.__traceback__):
        name = summary.filename
        if name.startswith("<") or os.path.abspath(name).startswith(libraries):
            continue
        found = summary
    if found is None:
        return None
    path = os.path.abspath(found.filename)
    rel = os.path.relpath(path)
    return {"file": path if rel.startswith("..") else rel, "line": found.lineno, "function": found.name, "code": (found.line or "").strip()[:200]}


def run(
    script: str,
    argv: list[str] | tuple[str, ...] = (),
    observers: list[Observer] | tuple[Observer, ...] = (),
    max_steps: int | None = None,
    extra: dict[str, Any] | None = None,
    write: bool = True,
    after_window: Any = None,
    call: Any = None,
) -> dict[str, Any]:
    """Run ``script`` as ``__main__`` under observation; write and return the payload (see module doc).

    ``after_window``: an ``after_window.AfterWindow``; the script then runs on, unobserved, for its budget after
    ``max_steps`` (the payload's status stays ``max-steps``; what followed is under ``after_window``).
    ``call``: a function to run under observation instead of the script (a rank the script started itself with
    ``torch.multiprocessing.spawn``, see ``trace_spawn``); ``sys.argv`` and ``sys.path`` are then left alone.
    """
    global ACTIVE_RUNNER
    runner = Runner(list(observers), max_steps)
    ACTIVE_RUNNER = runner
    runner.after_window = after_window

    def finish_window() -> dict:
        with contextlib.suppress(StopTraining):
            runner.notify("on_end", "max-steps")
        results = _observer_results(runner)
        if write:
            channel.write_result(_payload(runner, "max-steps", None, None, max_steps, results, extra))
        return results

    runner.finish_window = finish_window
    script = os.path.abspath(script)
    status, exc_info, exit_code = "finished", None, None
    saved_argv, saved_path0 = list(sys.argv), sys.path[0] if sys.path else None
    # our bare-named modules must not shadow a user module of the same name next to the script
    shadowed = {} if call is not None else {n: sys.modules.pop(n) for n in _own_module_names() & _user_module_names(script) if n in sys.modules}
    try:
        if after_window is not None:
            after_window.install()  # before the runner's patches, removed after them
        runner.install()
        runner.notify("on_start")
        if call is None:
            sys.argv = [script, *map(str, argv)]
            if sys.path:
                sys.path[0] = os.path.dirname(script)
            else:
                sys.path.insert(0, os.path.dirname(script))
        try:
            if call is None:
                runpy.run_path(script, run_name="__main__")
            else:
                call()
        except StopTraining as stop:
            status = str(stop) or runner._stop_reason or "max-steps"
        except SystemExit as exc:
            code = exc.code
            exit_code = code if isinstance(code, int) else (0 if code is None else 1)
            if runner._stopping:
                status = runner._stop_reason or "max-steps"
            elif exit_code != 0:
                status = "exit"
                exc_info = {"type": "SystemExit", "message": str(code), "traceback": ""}
        except BaseException as exc:  # noqa: BLE001 - the user's code failed: this is a result, not our crash
            if runner._stopping:  # e.g. the script wrapped StopTraining in another exception
                status = runner._stop_reason or "max-steps"
            else:
                status = "exception"
                exc_info = exception_info(exc)
        finally:
            if call is None:
                sys.argv = saved_argv
                if saved_path0 is not None and sys.path:
                    sys.path[0] = saved_path0
        after = after_window is not None and after_window.active
        if after:  # the observers finished at max-steps; how the script went on is the after-window's business
            after_window.finish(status if exc_info is None else f"exception: {exc_info['type']}: {exc_info['message'][:200]}")
            status, exc_info, exit_code = "max-steps", None, None
        else:
            try:
                runner.notify("on_end", status)
            except StopTraining:
                pass
    finally:
        runner.uninstall()
        ACTIVE_RUNNER = None
        if after_window is not None:
            after_window.uninstall()
        sys.modules.update(shadowed)
    results = after_window.results if after_window is not None and after_window.active else _observer_results(runner)
    payload = _payload(runner, status, exc_info, exit_code, max_steps, results, extra)
    if after_window is not None:
        payload["after_window"] = after_window.result()
    if write:
        channel.write_result(payload)
    return payload


def _observer_results(runner: Runner) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for obs in runner.observers:
        try:
            out[obs.name] = obs.result()
        except Exception:  # noqa: BLE001 - recorded; other observers' results still count
            runner.observer_errors.append({"observer": obs.name, "hook": "result", "traceback": traceback.format_exc()[-3000:]})
    return out


def _payload(runner: Runner, status: str, exc_info: Any, exit_code: Any, max_steps: Any, results: dict,
             extra: dict[str, Any] | None) -> dict[str, Any]:
    payload = {
        "status": status,
        "steps": runner.step,
        "last_good_step": runner.step - 1 if runner.step else None,
        "max_steps": max_steps,
        "exception": exc_info,
        "exit_code": exit_code,
        "observers": results,
        "observer_errors": runner.observer_errors,
        "environment": environment_info(),
        "compile_calls": runner.compile_guard.compile_calls,  # torch.compile calls, run eagerly here
    }
    if extra:
        payload.update(extra)
    return payload


def _own_module_names() -> set[str]:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return {f[:-3] for f in os.listdir(here) if f.endswith(".py")} - {"__init__"}
    except OSError:
        return set()


def _user_module_names(script: str) -> set[str]:
    try:
        return {f[:-3] for f in os.listdir(os.path.dirname(script)) if f.endswith(".py")}
    except OSError:
        return set()


def environment_info() -> dict[str, Any]:
    import torch

    return {
        "python": sys.executable,
        "python_version": sys.version.split()[0],
        "torch": torch.__version__,
        "cuda_available": bool(torch.cuda.is_available()),
    }


def main_with_config(build_observers) -> dict[str, Any]:
    """Entry-script helper: ``sys.argv[1]`` is a JSON config with ``script``, ``argv``, ``max_steps``.

    ``build_observers(config) -> list[Observer]``. Any failure before the script
    starts (bad config, an observer that cannot be built) is still written as a result.
    """
    import json

    try:
        with open(sys.argv[1], encoding="utf-8") as fh:
            config = json.load(fh)
        observers = build_observers(config)
    except BaseException as exc:
        channel.write_result({"status": "harness-error", "steps": 0, "last_good_step": None, "exception": exception_info(exc), "observers": {}, "observer_errors": []})
        raise
    from after_window import AfterWindow

    return run(config["script"], config.get("argv", []), observers=observers, max_steps=config.get("max_steps"), extra={"config": config},
               after_window=AfterWindow.from_config(config))
