"""The hook protocol between the script runner and the tools that watch it.

The runner (``run_user_script``) patches torch from the outside (optimizer ``step``
and ``zero_grad``, ``Tensor.backward``/``torch.autograd.backward``, LR
scheduler ``step``, global module forward hooks, ``Module.train``/``eval``)
and calls every registered observer at these points. Observers never raise
into the user's code: the runner catches and records their errors.

Standard library only (see ``__init__``).
"""

from __future__ import annotations

from typing import Any


def call_arg(args: tuple, kwargs: dict, index: int, name: str, default: Any = None) -> Any:
    """The argument a patched call received as ``name=`` or at position ``index``, else ``default``."""
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else default


class StopTraining(BaseException):
    """Raised by the runner to end the user's script cleanly after the last watched step.

    A BaseException, so a user's ``except Exception`` around the loop cannot swallow it.
    """


class Observer:
    """Base class: override what you need. ``step`` counts optimizer steps from 0."""

    name = "observer"
    inner_forwards = True  # False: on_module_forward only for whole models (roots), not for the modules inside them
    # Past its window an observer calls runner.narrow_forwards(self, scope) to stop getting the forwards it no longer
    # reads ('unregistered', 'outer', 'none'): every module call costs each listening observer a call.

    def on_start(self, runner: Any) -> None:
        """Before the user's script runs."""

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        """After any ``nn.Module`` forward (global forward hook)."""

    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        """Before ``loss.backward()`` / ``torch.autograd.backward``; ``tensors`` are the roots (the loss)."""

    def on_backward_end(self, runner: Any, tensors: Any) -> None:
        """After backward returned."""

    def on_zero_grad(self, runner: Any, optimizer: Any) -> None:
        """``optimizer.zero_grad()`` (or ``model.zero_grad()``) was called."""

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        """Before ``optimizer.step()``."""

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        """After ``optimizer.step()``; ``runner.step`` has already advanced."""

    def on_scheduler_step(self, runner: Any, scheduler: Any) -> None:
        """``lr_scheduler.step()`` was called."""

    def on_mode_change(self, runner: Any, module: Any, training: bool) -> None:
        """``module.train()``/``module.eval()`` on a root module."""

    def on_end(self, runner: Any, reason: str) -> None:
        """The script ended: ``'finished'``, ``'max-steps'``, ``'exception'`` or ``'non-finite'``."""

    def result(self) -> dict[str, Any]:
        """JSON-ready observations for the parent."""
        return {}
