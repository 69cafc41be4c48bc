"""Global random seeds set while the model trains (child side, stdlib + torch only).

``torch.manual_seed`` (also reached through ``torch.random.manual_seed`` and the usual ``set_seed`` /
``seed_everything`` helpers) and ``random.seed`` are wrapped: every call is recorded with the seed, the step the
primary optimizer had reached, which optimizer that was, and the user's file and line. A seed set again to a value
it already had, after training started and with the same optimizer training on afterwards, rewinds the global
generator: the shuffled batch order, the dropout masks and the random augmentations of the next stretch of
training replay the last one. A private ``torch.Generator().manual_seed(...)`` is not wrapped: reseeding one on
purpose (a fixed corruption of the evaluation data) leaves the training stream alone.
"""

from __future__ import annotations

import os
import sys
from typing import Any

MAX_CALLS = 200
SEED_FUNCTIONS = ("manual_seed",)


def call_sites(limit: int = 3) -> list[list]:
    """The user's frames calling into the wrapped function, innermost first (``[path, line]``): frames outside
    torch, the harness and the standard library's ``random``."""
    here = os.path.dirname(os.path.abspath(__file__))
    random_file = getattr(sys.modules.get("random"), "__file__", None)
    frame, out = sys._getframe(2), []
    while frame is not None and len(out) < limit:
        path = frame.f_code.co_filename
        if (not path.startswith(here) and f"{os.sep}torch{os.sep}" not in path and not path.startswith("<")
                and path != random_file):
            out.append([path, frame.f_lineno])
        frame = frame.f_back
    return out


class SeedWatch:
    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.end_step = 0
        self.end_optimizer: int | None = None

    def patches(self) -> list:
        import random

        import torch

        out = [(owner, name, self._wrap_for("torch")) for owner in (torch, torch.random) for name in SEED_FUNCTIONS
               if hasattr(owner, name)]
        out.append((random, "seed", self._wrap_for("random")))
        return out

    def _wrap_for(self, library: str):
        watch = self

        def factory(runner: Any, original: Any):
            def seeded(*args, **kwargs):
                if not runner._muted and len(watch.calls) < MAX_CALLS:
                    try:
                        watch.see(library, args[0] if args else kwargs.get("seed", kwargs.get("a")), runner)
                    except Exception:  # noqa: BLE001 - seeding must work whatever the watch does
                        runner.record_error("trace", "seed watch")
                return original(*args, **kwargs)

            return seeded

        return factory

    def see(self, library: str, seed: Any, runner: Any) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):  # None (seed from the clock), strings, bytes: no replay
            return
        primary = runner.primary_optimizer
        self.calls.append({"library": library, "seed": int(seed), "step": int(runner.step),
                           "optimizer": id(primary) if primary is not None else None, "sites": call_sites()})

    def on_end(self, runner: Any) -> None:
        self.end_step = int(runner.step)
        self.end_optimizer = id(runner.primary_optimizer) if runner.primary_optimizer is not None else None

    def result(self) -> dict:
        """The repeated seeds that rewound the generator in the middle of training (the first per library)."""
        repeats = []
        for library in ("torch", "random"):
            calls = [c for c in self.calls if c["library"] == library]
            earlier: set[int] = set()
            resets = []
            for call in calls:
                if (call["seed"] in earlier and call["step"] >= 1 and call["optimizer"] is not None
                        and call["optimizer"] == self.end_optimizer and self.end_step > call["step"]):
                    resets.append(call)
                earlier.add(call["seed"])
            if resets:
                first = resets[0]
                repeats.append({"library": library, "seed": first["seed"], "step": first["step"],
                                "resets": len(resets), "steps": [c["step"] for c in resets[:10]],
                                "sites": first["sites"], "path": (first["sites"] or [[None]])[0][0],
                                "line": (first["sites"] or [[None, None]])[0][1]})
        return {"calls": len(self.calls), "repeats": repeats, "end_step": self.end_step}
