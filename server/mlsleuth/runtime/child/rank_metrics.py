"""Per-rank evaluation metrics reported without a reduction (runs inside each rank; standard library and torch only).

:class:`ShardEvalObserver` (observer name ``"shard_eval"``) notes, on one rank of a world:

* every *evaluation pass* over a DataLoader whose sampler is a ``DistributedSampler`` (the pass starts
  under ``torch.no_grad()``/``inference_mode`` or with a watched model in eval mode), with the samples
  this rank sees and the size of the data set;
* every call of a ``torch.distributed`` function that combines values across ranks (``all_reduce``,
  ``all_gather``, ``reduce``, ``gather`` and their object/tensor variants: what
  ``accelerator.gather_for_metrics`` and torchmetrics' ``compute()`` call too);
* every ``print`` or ``logging`` record that reads like a metric (a metric word and a number) made after
  such a pass and before the next optimizer step, with no combining call since the pass began.

The cross-rank check (``runtime/trace/checks_rank_metrics.py``) flags a report that rank 0 made and the
other ranks did not: rank 0 printed the metric of its own shard as if it were the whole data set's.
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import os
import re
import sys
from typing import Any

from observer import Observer

COMBINING = ("all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "reduce", "gather", "gather_object",
             "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single")
METRIC_TEXT = re.compile(r"acc|loss|f1|auc|precision|recall|metric|score|bleu|rouge|map\b|iou|dice|error|err\b|ppl|perplex|val|eval|test",
                         re.IGNORECASE)
NUMBER = re.compile(r"\d")
# torch's own data-parallel machinery all-gathers parameters in forward (FSDP, DTensor): not a metric reduction
INTERNAL_CALLERS = tuple(f"{os.sep}torch{os.sep}{p}{os.sep}" for p in (
    os.path.join("distributed", "fsdp"), os.path.join("distributed", "_composable"), os.path.join("distributed", "tensor"),
    os.path.join("nn", "parallel")))
MAX_PASSES = 16
MAX_REPORTS = 16
TEXT = 200


def _sampler_of(loader: Any) -> Any:
    sampler = getattr(loader, "sampler", None)
    batch_sampler = getattr(loader, "batch_sampler", None)
    return getattr(batch_sampler, "sampler", None) if batch_sampler is not None and not _is_dist(sampler) else sampler


def _is_dist(sampler: Any) -> bool:
    try:
        from torch.utils.data.distributed import DistributedSampler
    except ImportError:
        return False
    return isinstance(sampler, DistributedSampler)


def _caller() -> dict[str, Any] | None:
    """The user's frame that called print/logging (the first frame outside this file and the logging module)."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename == __file__ or frame.f_code.co_filename == logging.__file__):
        frame = frame.f_back
    return {"file": frame.f_code.co_filename, "line": frame.f_lineno} if frame is not None else None


class ShardEvalObserver(Observer):
    name = "shard_eval"

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.runner: Any = None
        self.passes: list[dict[str, Any]] = []
        self.reports: list[dict[str, Any]] = []
        self.combining_calls = 0
        self._open: dict[str, Any] | None = None  # the latest evaluation pass, until the next optimizer step
        self.patches = self._patches()

    def _patches(self) -> list[tuple[Any, str, Any]]:
        patches: list[tuple[Any, str, Any]] = [(builtins, "print", self._wrap_print), (logging.Logger, "handle", self._wrap_handle)]
        with contextlib.suppress(Exception):
            from torch.utils.data import DataLoader

            patches.append((DataLoader, "__iter__", self._wrap_iter))
        with contextlib.suppress(Exception):
            import torch.distributed as dist

            patches.extend((dist, name, self._wrap_combining) for name in COMBINING if callable(getattr(dist, name, None)))
        return patches

    # -- patches ---------------------------------------------------------------------------------------
    def _wrap_iter(self, runner: Any, original: Any):
        observer = self

        def loader_iter(loader):
            with contextlib.suppress(Exception):
                observer._note_pass(loader)
            return original(loader)

        return loader_iter

    def _wrap_combining(self, runner: Any, original: Any):
        observer = self

        def combining(*args, **kwargs):
            caller = sys._getframe(1).f_code.co_filename
            if not any(part in caller for part in INTERNAL_CALLERS):
                observer.combining_calls += 1
                if observer._open is not None:
                    observer._open["combined"] = True
            return original(*args, **kwargs)

        return combining

    def _wrap_print(self, runner: Any, original: Any):
        observer = self

        def printing(*args, **kwargs):
            with contextlib.suppress(Exception):
                if observer._open is not None and not observer._open.get("combined"):
                    observer._note_report(str(kwargs.get("sep", " ")).join(str(a) for a in args), "print")
            return original(*args, **kwargs)

        return printing

    def _wrap_handle(self, runner: Any, original: Any):
        observer = self

        def handle(logger, record):
            with contextlib.suppress(Exception):
                if observer._open is not None and not observer._open.get("combined"):
                    observer._note_report(record.getMessage(), "logging")
            return original(logger, record)

        return handle

    # -- notes -----------------------------------------------------------------------------------------
    def _note_pass(self, loader: Any) -> None:
        import torch

        sampler = _sampler_of(loader)
        if not _is_dist(sampler):
            return
        roots = list(getattr(self.runner, "roots", None) or [])
        evaluating = not torch.is_grad_enabled() or torch.is_inference_mode_enabled() or any(not r.training for r in roots)
        if not evaluating:
            return
        entry = {"index": len(self.passes), "step": self.runner.step if self.runner is not None else 0,
                 "samples": len(sampler), "dataset": len(getattr(loader, "dataset", ()) or ()), "combined": False,
                 "num_replicas": getattr(sampler, "num_replicas", None)}
        if len(self.passes) < MAX_PASSES:
            self.passes.append(entry)
        self._open = entry

    def _note_report(self, text: str, how: str) -> None:
        if len(self.reports) >= MAX_REPORTS or not (METRIC_TEXT.search(text) and NUMBER.search(text)):
            return
        self.reports.append({"text": text.strip()[:TEXT], "how": how, "pass": self._open["index"], "step": self._open["step"],
                             "where": _caller()})

    # -- hooks -----------------------------------------------------------------------------------------
    def on_start(self, runner: Any) -> None:
        self.runner = runner

    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        self._open = None  # training resumed: later lines are the training loop's

    def result(self) -> dict[str, Any]:
        return {"passes": list(self.passes), "reports": list(self.reports), "combining_calls": self.combining_calls}
