"""The trace's generic probes: mechanisms many bug families share, observed on the user's real run (child side).

Stdlib + torch only. One observer (``generic``) feeds six watches:

* :mod:`trace_inplace`: a module overwrote a tensor it was given, and its caller read that tensor again;
* :mod:`trace_untrained`: tensors that get gradients (or look like weights) but that no optimizer ever updates;
* :mod:`trace_zero_outputs`: a module whose train-time output is all exact zeros although its input is not;
* :mod:`trace_padding_rows`: an embedding fed one id per sample whose padding row (no gradient) is a real id;
* :mod:`trace_identity_acts`: a leaky_relu / rrelu / prelu whose output equals its input despite negative inputs;
* :mod:`trace_param_iters`: a ``model.parameters()`` generator iterated again once used up, and gradient clipping
  given no parameter that holds a gradient.

The first two look at step 0's first training forward through :mod:`trace_first_ops` (one window of intercepted
torch calls, closed at the first backward); the last two at the module calls of the first few steps. After that the
observer does nothing per step (the last two are patches that sample their first steps only). Under a running process group (DDP/FSDP under torchrun) the first two stand down, since
sharded tensors do not survive the interception, and the result says so; the last two still run.
"""

from __future__ import annotations

from typing import Any

from observer import Observer
from trace_first_ops import FirstOps
from trace_identity_acts import IdentityActivationWatch
from trace_inplace import InplaceInputWatch
from trace_padding_rows import PaddingRowWatch
from trace_param_iters import ParamIterWatch
from trace_untrained import UntrainedTensorWatch
from trace_zero_outputs import STEPS as ZERO_STEPS
from trace_zero_outputs import ZeroOutputWatch


class GenericObserver(Observer):
    name = "generic"
    wants_module_stack = True

    def __init__(self, config: dict | None = None) -> None:
        self.config = config or {}
        self.window = FirstOps()
        self.inplace = InplaceInputWatch()
        self.untrained = UntrainedTensorWatch()
        self.zeros = ZeroOutputWatch()
        self.padding_rows = PaddingRowWatch()
        self.identity_acts = IdentityActivationWatch()
        self.param_iters = ParamIterWatch(_user_file_test())
        self.patches = self.identity_acts.patches() + self.param_iters.patches()
        self.window.listeners = [self.inplace, self.untrained]
        self._handle: Any = None
        self._runner: Any = None
        self.skipped: str | None = None

    def on_start(self, runner: Any) -> None:
        from torch.nn.modules import module as module_mod

        self._runner = runner
        self._handle = module_mod.register_module_forward_pre_hook(self._pre_forward)

    def _pre_forward(self, module: Any, inputs: tuple) -> None:
        runner = self._runner
        if runner is None or runner._muted or self.window.done:
            return
        try:
            self._entering(runner, module, inputs)
        except Exception:  # noqa: BLE001 - never break the user's forward
            runner.record_error(self.name, "forward_pre")
            self._close()

    def _entering(self, runner: Any, module: Any, inputs: tuple) -> None:
        import torch

        stack = runner.module_stack
        top = len(stack) == 1 and stack[0] is module  # the runner's own pre-hook ran first and pushed it
        if not self.window.active:
            if runner.step != 0 or not top or not torch.is_grad_enabled() or not any(r is module for r in runner.roots):
                return
            if _distributed():
                # sharded parameters (FSDP/DTensor) under the per-op interception crash the child: the two probes that
                # read the intercepted calls stand down; the zero-output watch only reads module outputs and goes on
                self.skipped = "a distributed process group is running (sharded tensors are not intercepted)"
                self._close()
                return
            self.untrained.begin(runner)
            self.inplace.begin(runner, module, inputs)
            self.window.start(runner)
        elif top:
            self.inplace.root_inputs(inputs)
        self.inplace.enter(module)
        self.untrained.module_called(runner, module, inputs)

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        if runner.step >= ZERO_STEPS and not self.window.active:
            return  # past the first steps: nothing to do per forward
        if self.window.active:
            self.inplace.leave(runner, module, inputs, runner.forward_kwargs, output)
        self.zeros.on_forward(runner, module, inputs, runner.forward_kwargs, output)
        self.padding_rows.on_forward(runner, module, inputs)

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        if self.skipped or runner.step > 1 and not self.window.active:
            return
        import torch

        root = tensors if isinstance(tensors, torch.Tensor) else (tensors[0] if tensors else None)
        if isinstance(root, torch.Tensor):
            self.untrained.on_backward(runner, root)
        if self.window.active:
            self._close()

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        if self.window.active or (self._handle is not None and runner.step >= 1):
            self._close()
        if runner.step >= ZERO_STEPS and not self.window.active:  # (a skipped window still watches zero outputs)
            runner.narrow_forwards(self, "none")  # on_module_forward would return at once from now on

    def _close(self) -> None:
        was_open = self.window.active
        self.window.stop()
        if was_open:
            self.inplace.end()
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def on_end(self, runner: Any, reason: str) -> None:
        self._close()
        self.param_iters.close()
        if not self.skipped:
            self.untrained.end(runner)

    def result(self) -> dict[str, Any]:
        shared = {"identity_activations": self.identity_acts.result(), **self.param_iters.result()}
        if self.skipped:  # the in-place and untrained-tensor probes did not run; the zero-output watch did
            return {"skipped": self.skipped, "skipped_probes": ["module-overwrites-input-still-used",
                                                                 "trainable-tensor-not-optimized",
                                                                 "learnable-value-in-plain-tensor"],
                    "zero_outputs": self.zeros.result(), "padding_rows": self.padding_rows.result(), **shared}
        return {"inplace": self.inplace.result(), **self.untrained.result(), "zero_outputs": self.zeros.result(),
                "padding_rows": self.padding_rows.result(),
                "window": {"ops": self.window.ops, "truncated": self.window.truncated}, **shared}


def _distributed() -> bool:
    import torch

    dist = getattr(torch, "distributed", None)
    return bool(dist is not None and dist.is_available() and dist.is_initialized())


def _user_file_test():
    """``path -> bool``: whether code at ``path`` is the user's own (not Python's, an installed library's, torch's
    or this harness's); answers are cached per path."""
    import os

    from run_user_script import _library_folders

    libraries = _library_folders()
    torch_part = f"{os.sep}torch{os.sep}"
    cache: dict[str, bool] = {}

    def is_user(path: str) -> bool:
        known = cache.get(path)
        if known is None:
            known = not (path.startswith("<") or torch_part in path or os.path.abspath(path).startswith(libraries))
            if len(cache) < 10000:
                cache[path] = known
        return known

    return is_user
