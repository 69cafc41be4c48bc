"""torch.compile under observation: run compiled code eagerly, and see through the compile wrapper.

Child side (stdlib + torch only). The observers hook torch from the outside (global module forward
hooks, patched ``torch.nn.functional`` losses, patched ``Tensor.log``...). TorchDynamo would trace into
those hooks while compiling the user's model and fail on their bookkeeping (a global hook that appends
to a list is a side effect dynamo refuses: ``... is already tracked for mutation``), which the user
would see as a crash of their own code. Under observation the compiled code therefore runs eagerly:
``torch._dynamo.config.disable`` makes every compiled function and ``OptimizedModule`` call the
original Python code. The maths is the same (compilation only fuses kernels); what is not observed is
the compiler itself (its numerics, graph breaks, recompilations).

``torch.compile(model)`` returns an ``OptimizedModule`` that holds the model as ``_orig_mod``; the
forward hooks skip that wrapper so the model itself is the root the observers see and its modules are
named as in the user's model (``0.weight``, not ``_orig_mod.0.weight``).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

WRAPPER_TYPES = ("OptimizedModule",)
_HOOK_WARNING = r"Using `torch.compile\(module\)` when there are global hooks"


class EagerCompile:
    """Turns TorchDynamo off while installed (restores the previous setting on ``uninstall``).

    Importing TorchDynamo costs seconds, so it is turned off when the script first calls
    ``torch.compile`` (``nn.Module.compile`` calls it too), or at once when it is already imported.
    """

    def __init__(self) -> None:
        self._config: Any = None
        self._previous: Any = None
        self.compile_calls = 0
        self._torch: Any = None
        self._original_compile: Any = None

    def install(self) -> None:
        import torch

        if "torch._dynamo" in sys.modules:
            self._turn_off()
        original = getattr(torch, "compile", None)
        if original is None:
            return
        guard = self

        def compile_eagerly(*args: Any, **kwargs: Any) -> Any:
            guard.compile_calls += 1
            guard._turn_off()
            return original(*args, **kwargs)

        self._torch, self._original_compile = torch, original
        torch.compile = compile_eagerly

    def _turn_off(self) -> None:
        if self._config is not None:
            return
        try:
            from torch._dynamo import config
        except Exception:  # noqa: BLE001 - a torch without dynamo compiles nothing: nothing to turn off
            return
        if not hasattr(config, "disable"):
            return
        self._config, self._previous = config, config.disable
        config.disable = True
        # the compile wrapper warns that global hooks fire twice; they are ours, and they skip the wrapper
        warnings.filterwarnings("ignore", message=_HOOK_WARNING)

    def uninstall(self) -> None:
        if self._config is not None:
            self._config.disable = self._previous
            self._config = None
        if self._torch is not None:
            self._torch.compile = self._original_compile
            self._torch = None


def is_compile_wrapper(module: Any) -> bool:
    """Whether ``module`` is the wrapper ``torch.compile(model)`` returns (its model is ``module._orig_mod``)."""
    return type(module).__name__ in WRAPPER_TYPES and "_orig_mod" in getattr(module, "_modules", {})


def unwrap(module: Any) -> Any:
    """The user's model inside compile wrappers (``torch.compile(torch.compile(m))`` included)."""
    seen = 0
    while is_compile_wrapper(module) and seen < 8:
        module = module._modules["_orig_mod"]
        seen += 1
    return module
