"""Frozen parameters an optimizer still moves after the watched steps (child side, stdlib + torch only).

A script that freezes part of its model for a second stage (``requires_grad=False`` on the encoder after N epochs)
usually does so long after the traced steps, while it runs on unobserved (see ``after_window``). The trace's own
measurement of frozen parameters moved by ``optimizer.step()`` never sees that stage. This watch does, cheaply:

* every ``CHECK_EVERY``-th step of each optimizer it looks at that optimizer's parameters' ``requires_grad`` flags;
* once it finds frozen parameters there that it has not measured yet (a freeze from the start is measured once, a
  later stage's freeze again), it copies them (``MAX_TENSORS`` tensors, ``MAX_ELEMENTS`` elements at most) before
  each of the next ``MEASURED_STEPS`` steps and compares after the step (``MAX_MEASURED`` steps in all);
* a frozen parameter that changed during a step is recorded with its name in the traced models.

Nothing else is done per step, and nothing at all once the steps are measured.
"""

from __future__ import annotations

from typing import Any

CHECK_EVERY = 8
MEASURED_STEPS = 3
MAX_MEASURED = 12
MAX_TENSORS = 64
MAX_ELEMENTS = 4_000_000
MAX_RECORDS = 50


class FrozenStepWatch:
    def __init__(self) -> None:
        self.names: dict[int, tuple[str, str]] = {}  # id(parameter) -> (name, module) in the traced models
        self.moved: dict[str, dict] = {}
        self.measured = 0  # steps measured with frozen parameters in the stepping optimizer
        self._counts: dict[int, int] = {}  # id(optimizer) -> its steps seen after the window
        self._armed: dict[int, int] = {}  # id(optimizer) -> steps left to measure its newly frozen parameters
        self._known: dict[int, set] = {}  # id(optimizer) -> ids of the frozen parameters already measured
        self._fresh: dict[int, set] = {}  # id(optimizer) -> ids of the frozen parameters its measurement is for
        self._pending: Any = None  # (optimizer, [(parameter, copy)]) between a step's start and end

    def begin(self, runner: Any) -> None:
        """At the end of the watched window: the traced models' parameter names (nothing is held but ids)."""
        from run_user_script import unwrap

        multi = len(runner.roots) > 1
        for root in runner.roots:
            prefix = runner.root_prefix(root, multi)
            for mname, m in unwrap(root).named_modules():
                for pname, p in m.named_parameters(recurse=False):
                    full = f"{mname}.{pname}" if mname else pname
                    self.names.setdefault(id(p), (prefix + full, prefix + mname if mname else (prefix.rstrip(".") or "")))

    def before_step(self, opt: Any) -> None:
        if self.measured >= MAX_MEASURED:
            return
        key = id(opt)
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        if n % CHECK_EVERY and not self._armed.get(key):
            return
        frozen = [p for g in opt.param_groups for p in g["params"] if not p.requires_grad]
        if not self._armed.get(key):
            ids = {id(p) for p in frozen}
            known = self._known.setdefault(key, set())
            if ids <= known:
                return  # none frozen, or the same ones measured already
            self._fresh[key] = ids - known
            known |= ids
            self._armed[key] = MEASURED_STEPS
        self._armed[key] -= 1
        fresh = self._fresh.get(key) or set()
        taken, elements = [], 0
        for p in sorted(frozen, key=lambda t: id(t) not in fresh):  # the newly frozen first
            if len(taken) >= MAX_TENSORS:
                break
            if elements + p.numel() > MAX_ELEMENTS:
                continue  # copies stay bounded; a smaller frozen tensor still tells
            elements += p.numel()
            taken.append((p, p.detach().clone()))
        self._pending = (opt, taken)

    def after_step(self, opt: Any) -> None:
        import torch

        pending, self._pending = self._pending, None
        if pending is None or pending[0] is not opt:
            return
        self.measured += 1
        for p, before in pending[1]:
            if p.shape == before.shape and torch.equal(p.detach(), before):
                continue
            name, module = self.names.get(id(p), (f"optimizer tensor {tuple(p.shape)}", "(outside the model)"))
            rec = self.moved.get(name)
            if rec is None:
                if len(self.moved) >= MAX_RECORDS:
                    continue
                rec = self.moved[name] = {"name": name, "module": module, "moved_steps": 0, "optimizer": type(opt).__name__}
            rec["moved_steps"] += 1

    def result(self) -> dict:
        return {"frozen_steps_measured": self.measured, "frozen_moved": list(self.moved.values())}
