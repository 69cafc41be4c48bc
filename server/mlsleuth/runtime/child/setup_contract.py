"""Load a user's *setup function* (``FILE:FUNCTION``) and normalise what it returns.

Runs inside the child (stdlib + torch only; siblings imported by bare name).
Used by ``mlsleuth diagnose`` and ``mlsleuth nan FILE:FUNCTION``.

The contract (documented for users in ``mlsleuth diagnose --help``)
--------------------------------------------------------------------
A zero-argument function in the user's file returns a dict with:

``model`` (required)
    an ``nn.Module``.
``batch`` or ``loader`` (one required)
    ``batch``: an ``(inputs, targets)`` tuple/list, or a dict (see below);
    ``loader``: any iterable of such batches (a DataLoader, a list, a generator function's result).
``loss_fn`` or ``compute_loss`` (one required)
    ``loss_fn(outputs, targets) -> scalar tensor`` or
    ``compute_loss(model, batch) -> scalar tensor`` for anything unusual; ``compute_loss`` may instead
    return a dict of named one-element tensors (``{"pde": ..., "boundary": ...}``, a PINN's residual and
    condition terms, a VAE's reconstruction and KL): the loss is their sum, and ``diagnose`` measures each
    term's value and gradient norm.
``optimizer`` (optional)
    ``callable(params) -> torch.optim.Optimizer``; default ``Adam(params, lr=1e-3)``.
``num_classes``, ``task`` ('classification' | 'regression' | 'sequence'), ``time_dim`` (optional hints).

How a batch is fed to the model when ``loss_fn`` is used:

* ``(inputs, targets)``: ``model(*inputs)`` when ``inputs`` is a tuple/list, ``model(**inputs)``
  when it is a dict (keyword inputs, e.g. ``{"input_ids": ..., "attention_mask": ...}``), else
  ``model(inputs)``;
* a dict with ``inputs``/``targets`` keys (or ``x``/``y``, ``input``/``target``): same as the tuple;
  any other dict needs ``compute_loss``.

API
---
``load_setup(spec, cwd=None) -> Setup``
    Import the file *as a module* (not as ``__main__``, so its training block does
    not run), call the function, validate the dict. Raises :class:`SetupError`
    with a message that says what was wrong and what to do.
``Setup.first_batch()``, ``Setup.batches(n)``, ``Setup.split(batch)``,
``Setup.forward(model, batch)``, ``Setup.loss(model, batch)`` (-> ``(loss, outputs)``),
``Setup.loss_terms(model, batch)`` (-> ``(loss, outputs, named terms or None)``),
``Setup.make_optimizer(params)``, ``Setup.to(device)`` (moves model and batches).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compile_guard import unwrap

TASKS = ("classification", "regression", "sequence")
_PAIR_KEYS = (("inputs", "targets"), ("x", "y"), ("input", "target"))
_KNOWN_KEYS = {"model", "batch", "loader", "loss_fn", "compute_loss", "optimizer", "num_classes", "task", "time_dim"}


class SetupError(Exception):
    """The setup function or what it returned does not follow the contract."""


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``path/to/file.py:function`` (the last colon separates; Windows drives survive)."""
    path, sep, func = spec.rpartition(":")
    if not sep or not path or not func:
        raise SetupError(f"expected FILE:FUNCTION (e.g. train.py:setup), got {spec!r}")
    if not func.isidentifier():
        raise SetupError(f"{func!r} is not a Python function name (expected FILE:FUNCTION)")
    return path, func


def import_file(path: str) -> Any:
    """Import a .py file as a fresh module whose folder is on sys.path (as if run from there)."""
    if not os.path.isfile(path):
        raise SetupError(f"no such file: {path}")
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = "_mlsleuth_user_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SetupError(f"cannot import {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # user exceptions propagate with their traceback
    return module


@dataclass
class Setup:
    model: Any
    loss_fn: Callable | None = None
    compute_loss: Callable | None = None
    batch: Any = None
    loader: Any = None
    optimizer_factory: Callable | None = None
    num_classes: int | None = None
    task: str | None = None
    time_dim: int | None = None
    path: str = ""
    function: str = ""
    _cache: list = field(default_factory=list)

    # -- batches ---------------------------------------------------------------
    def batches(self, n: int) -> list:
        """Up to ``n`` batches (the single ``batch`` counts as one); cached, so repeatable."""
        if self.batch is not None:
            return [self.batch]
        while len(self._cache) < n:
            if not hasattr(self, "_iter"):
                self._iter = iter(self.loader)
            more = list(itertools.islice(self._iter, n - len(self._cache)))
            if not more:
                break
            self._cache.extend(more)
        if not self._cache:
            raise SetupError(f"{self.function}(): 'loader' yielded no batches")
        return self._cache[:n]

    def first_batch(self) -> Any:
        return self.batches(1)[0]

    def split(self, batch: Any) -> tuple[Any, Any]:
        """``(inputs, targets)`` of a batch; raises SetupError when the batch has no such shape."""
        if isinstance(batch, (tuple, list)):
            if len(batch) != 2:
                raise SetupError(
                    f"a batch must be an (inputs, targets) pair; got a {type(batch).__name__} of length {len(batch)}. "
                    "Return compute_loss(model, batch) in the setup dict for other layouts."
                )
            return batch[0], batch[1]
        if isinstance(batch, dict):
            for a, b in _PAIR_KEYS:
                if a in batch and b in batch:
                    return batch[a], batch[b]
            raise SetupError(
                f"a dict batch needs 'inputs' and 'targets' keys (has {sorted(batch)[:6]}); "
                "or return compute_loss(model, batch) in the setup dict"
            )
        raise SetupError(f"a batch must be an (inputs, targets) tuple or a dict, got {type(batch).__name__}")

    def forward(self, model: Any, inputs: Any) -> Any:
        return call_model(model, inputs)

    def loss(self, model: Any, batch: Any) -> tuple[Any, Any]:
        """``(loss, outputs)``; outputs is None with ``compute_loss``."""
        loss, outputs, _terms = self.loss_terms(model, batch)
        return loss, outputs

    def loss_terms(self, model: Any, batch: Any) -> tuple[Any, Any, dict | None]:
        """``(loss, outputs, terms)``: ``terms`` is the dict of named terms ``compute_loss`` returned (the loss is
        their sum), else None; outputs is None with ``compute_loss``."""
        if self.compute_loss is not None:
            value = self.compute_loss(model, batch)
            if isinstance(value, dict):
                return sum_terms(value, f"{self.path}:{self.function}()"), None, value
            return value, None, None
        inputs, targets = self.split(batch)
        outputs = self.forward(model, inputs)
        return self.loss_fn(outputs, targets), outputs, None

    def make_optimizer(self, params: Any) -> Any:
        import torch

        params = list(params)
        if self.optimizer_factory is None:
            return torch.optim.Adam(params, lr=1e-3)
        opt = self.optimizer_factory(params)
        if not isinstance(opt, torch.optim.Optimizer):
            raise SetupError(f"'optimizer' must be callable(params) -> torch.optim.Optimizer; it returned {type(opt).__name__}")
        return opt

    def to(self, device: Any) -> Setup:
        """Move the model and the (cached) batches to ``device``."""
        self.model.to(device)
        if self.batch is not None:
            self.batch = move(self.batch, device)
        else:
            self._cache = [move(b, device) for b in self._cache]
        return self


def sum_terms(terms: dict, where: str) -> Any:
    """The loss as the sum of the named terms ``compute_loss`` returned; SetupError when they are not scalar tensors."""
    import torch

    if not terms:
        raise SetupError(f"{where}: compute_loss returned an empty dict; return the loss, or a dict of named loss terms")
    bad = [str(k) for k, v in terms.items() if not isinstance(v, torch.Tensor) or v.numel() != 1 or not v.is_floating_point()]
    if bad:
        raise SetupError(f"{where}: compute_loss returned a dict whose term(s) {bad[:5]} are not one-element floating-point "
                         "tensors; every value must be a scalar loss term (the loss is their sum)")
    values = [v.reshape(()) for v in terms.values()]
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def call_model(model: Any, inputs: Any) -> Any:
    """``model(*inputs)`` for a tuple/list, ``model(**inputs)`` for a dict, else ``model(inputs)``."""
    if isinstance(inputs, (tuple, list)):
        return model(*inputs)
    if isinstance(inputs, dict):
        return model(**inputs)
    return model(inputs)


def with_first_tensor(inputs: Any, tensor: Any) -> Any:
    """``inputs`` (a tensor, a tuple/list or a dict of them) with its first tensor replaced by ``tensor``."""
    import torch

    if isinstance(inputs, torch.Tensor):
        return tensor
    if isinstance(inputs, dict):
        key = next((k for k, v in inputs.items() if isinstance(v, torch.Tensor)), None)
        return {**inputs, key: tensor} if key is not None else inputs
    if isinstance(inputs, (tuple, list)):
        items = list(inputs)
        index = next((i for i, v in enumerate(items) if isinstance(v, torch.Tensor)), None)
        if index is not None:
            items[index] = tensor
        return type(inputs)(items) if isinstance(inputs, list) else tuple(items)
    return inputs


def forward_location(model: Any) -> dict[str, Any] | None:
    """Where the model's ``forward`` is defined and what it takes (for errors about calling it)."""
    import inspect

    forward = getattr(type(model), "forward", None)
    try:
        file = inspect.getsourcefile(forward)
        _, line = inspect.getsourcelines(forward)
        signature = str(inspect.signature(forward))
    except (TypeError, OSError, ValueError):
        return None
    return {"file": file, "line": line, "qualname": getattr(forward, "__qualname__", "forward"), "signature": signature}


def move(obj: Any, device: Any) -> Any:
    """Recursively move tensors in tuples/lists/dicts to ``device``."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: move(v, device) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)):
        return type(obj)(move(v, device) for v in obj)
    return obj


def load_setup(spec: str) -> Setup:
    """Import ``FILE:FUNCTION``, call it and validate the returned dict against the contract."""
    import torch

    path, func_name = parse_spec(spec)
    module = import_file(path)
    func = getattr(module, func_name, None)
    if func is None:
        names = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and getattr(v, "__module__", None) == module.__name__]
        raise SetupError(f"{path} has no function {func_name!r}; functions there: {', '.join(names) or 'none'}")
    if not callable(func):
        raise SetupError(f"{path}:{func_name} is a {type(func).__name__}, not a function")
    spec_dict = func()
    where = f"{path}:{func_name}()"
    if not isinstance(spec_dict, dict):
        raise SetupError(f"{where} must return a dict with 'model', 'batch' or 'loader', and 'loss_fn' or 'compute_loss'; it returned {type(spec_dict).__name__}")
    unknown = sorted(set(spec_dict) - _KNOWN_KEYS)
    if unknown:
        raise SetupError(f"{where} returned unknown key(s) {unknown}; known keys: {sorted(_KNOWN_KEYS)}")
    model = spec_dict.get("model")
    if not isinstance(model, torch.nn.Module):
        raise SetupError(f"{where}: 'model' must be a torch.nn.Module, got {type(model).__name__}")
    has_batch, has_loader = "batch" in spec_dict, "loader" in spec_dict
    if has_batch == has_loader:
        raise SetupError(f"{where}: return exactly one of 'batch' (one (inputs, targets) batch) or 'loader' (an iterable of batches)")
    loss_fn, compute_loss = spec_dict.get("loss_fn"), spec_dict.get("compute_loss")
    if (loss_fn is None) == (compute_loss is None):
        raise SetupError(f"{where}: return exactly one of 'loss_fn' (outputs, targets) -> loss or 'compute_loss' (model, batch) -> loss")
    for key, value in (("loss_fn", loss_fn), ("compute_loss", compute_loss), ("optimizer", spec_dict.get("optimizer"))):
        if value is not None and not callable(value):
            raise SetupError(f"{where}: {key!r} must be callable, got {type(value).__name__}")
    if has_loader and not hasattr(spec_dict["loader"], "__iter__"):
        raise SetupError(f"{where}: 'loader' must be iterable, got {type(spec_dict['loader']).__name__}")
    task = spec_dict.get("task")
    if task is not None and task not in TASKS:
        raise SetupError(f"{where}: 'task' must be one of {TASKS}, got {task!r}")
    for key in ("num_classes", "time_dim"):
        value = spec_dict.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise SetupError(f"{where}: {key!r} must be an int, got {value!r}")
    if spec_dict.get("num_classes") is not None and spec_dict["num_classes"] < 2:
        raise SetupError(f"{where}: 'num_classes' must be at least 2")
    setup = Setup(
        model=unwrap(model),  # a torch.compile'd model: checked as the eager model inside (see compile_guard)
        loss_fn=loss_fn,
        compute_loss=compute_loss,
        batch=spec_dict.get("batch"),
        loader=spec_dict.get("loader"),
        optimizer_factory=spec_dict.get("optimizer"),
        num_classes=spec_dict.get("num_classes"),
        task=task,
        time_dim=spec_dict.get("time_dim"),
        path=path,
        function=func_name,
    )
    if loss_fn is not None:
        setup.split(setup.first_batch())  # fail early, with the contract's message
    return setup
