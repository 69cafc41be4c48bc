"""mlsleuth checks inside your own Hugging Face ``Trainer`` run: a ``TrainerCallback``.

::

    from mlsleuth.integrations.hf import MlsleuthCallback
    trainer = Trainer(..., callbacks=[MlsleuthCallback(report_path="mlsleuth-report.json")])
    trainer.train()                # the report is printed (and written) when training ends
    trainer.callback_handler.callbacks[-1].report   # or read it as a mlsleuth Report

What it measures is what ``mlsleuth trace`` measures on language-model batches (the same
child-side code, :mod:`mlsleuth.runtime.child.trace_lm_batches`): every training call of the
model with ``input_ids``, its ``labels`` and ``attention_mask``, and the cross-entropy of a
``compute_loss`` override. The findings come from the same trace checks, with the same ids
(``lm-labels-double-shifted``, ``lm-targets-unshifted``, ``lm-pad-labels-scored``,
``lm-batch-without-targets``, plus ``non-finite-loss`` from the model's own loss), in a
``Report`` of the trace schema. ``F.cross_entropy`` is wrapped from ``on_train_begin`` to
``on_train_end`` only; the model gets one forward hook, removed at the end.

``transformers`` is imported only when ``MlsleuthCallback`` is first used, never when
mlsleuth is imported.
"""

from __future__ import annotations

import os
import sys
from typing import Any

CHECK_IDS = ("lm-labels-double-shifted", "lm-targets-unshifted", "lm-pad-labels-scored", "lm-batch-without-targets",
             "non-finite-loss")

__all__ = ["CHECK_IDS", "MlsleuthCallback", "report_from_measurements"]


class _Patching:
    """The bit of the script runner's interface that the child-side watch's patches use."""

    def __init__(self) -> None:
        self._muted = 0
        self.errors: list[str] = []

    def record_error(self, observer: str, hook: str) -> None:
        import traceback

        if len(self.errors) < 20:
            self.errors.append(f"{observer} {hook}: {traceback.format_exc()[-1500:]}")


def report_from_measurements(measured: dict[str, Any], *, path: str | None = None, errors: list[str] | None = None,
                             steps: int | None = None):
    """A trace-schema :class:`mlsleuth.report.Report` from the watch's ``result()`` (``lm_batches``)."""
    from mlsleuth.report import ErrorEntry, Report
    from mlsleuth.runtime.trace.run import trace_findings

    data = {"lm_batches": measured, "non_finite_loss": measured.get("non_finite_loss")}
    if path:
        data["script_dir"] = os.path.dirname(os.path.abspath(path))
    report = Report(tool="trace")
    report.findings.extend(trace_findings(data, path=path, command=f"mlsleuth trace {path or 'SCRIPT'}",
                                          only=lambda check_id: check_id in CHECK_IDS))
    for text in errors or []:
        report.errors.append(ErrorEntry(kind="internal-error", path=path, message="mlsleuth's callback failed on a batch (a bug in mlsleuth; other checks still ran)", detail=text))
    labeled = measured.get("labeled") or {}
    stats: dict[str, Any] = {"source": "MlsleuthCallback", "batches_measured": measured.get("batches", 0),
                             "model": measured.get("model")}
    if steps is not None:
        stats["steps"] = steps
    if labeled.get("positions"):
        stats["ignored_label_share"] = round(labeled.get("ignored", 0) / labeled["positions"], 4)
    report.finalize(stats=stats)
    return report


def _build_class():
    from transformers import TrainerCallback

    from mlsleuth.runtime.child.trace_lm_batches import LMBatchWatch

    class MlsleuthCallback(TrainerCallback):
        """Checks the training batches of a Hugging Face ``Trainer`` run and reports when training ends.

        ``report_path``: write the report there as JSON (default: do not write). ``print_report``: print the text
        report to stderr at the end (default True). ``script``: the path shown in findings (default: the running
        script). The last report is kept in ``self.report``.
        """

        def __init__(self, report_path: str | os.PathLike[str] | None = None, *, print_report: bool = True,
                     script: str | None = None) -> None:
            self.report_path = os.fspath(report_path) if report_path is not None else None
            self.print_report = print_report
            self.script = script if script is not None else (sys.argv[0] if sys.argv and sys.argv[0] else None)
            self.report = None
            self._watch: Any = None
            self._handle: Any = None
            self._patches: list = []
            self._runner = _Patching()
            self._step = 0

        # -- training events -------------------------------------------------------------
        def on_train_begin(self, args, state, control, model=None, **kwargs):
            self._stop()
            self._runner = _Patching()
            self._watch = LMBatchWatch(step=lambda: self._step)
            if model is not None:
                self._handle = model.register_forward_hook(self._hook, with_kwargs=True)
            for owner, attribute, factory in self._watch.patches():
                original = getattr(owner, attribute)
                self._patches.append((owner, attribute, original))
                setattr(owner, attribute, factory(self._runner, original))

        def on_step_end(self, args, state, control, **kwargs):
            self._step = state.global_step

        def on_train_end(self, args, state, control, **kwargs):
            self._stop()
            if self._watch is None:
                return
            self.report = report_from_measurements(self._watch.result(), path=self.script, errors=self._runner.errors,
                                                   steps=state.global_step)
            if self.report_path:
                from mlsleuth.render import render

                with open(self.report_path, "w", encoding="utf-8") as fh:
                    fh.write(render(self.report, "json"))
            if self.print_report:
                from mlsleuth.render import render

                print(render(self.report, "text"), file=sys.stderr)

        # -- helpers ---------------------------------------------------------------------
        def _hook(self, module, args, kwargs, output):
            try:
                self._watch.observe_model_call(module, args, kwargs, output)
            except Exception:  # noqa: BLE001 - never break the user's training; reported in the report's errors
                self._runner.record_error("callback", "model call")

        def _stop(self) -> None:
            if self._handle is not None:
                self._handle.remove()
                self._handle = None
            for owner, attribute, original in reversed(self._patches):
                setattr(owner, attribute, original)
            self._patches = []
            if self._watch is not None:
                self._watch.stop()

    return MlsleuthCallback


_CLASS: Any = None


def __getattr__(name: str) -> Any:
    global _CLASS
    if name == "MlsleuthCallback":
        if _CLASS is None:
            try:
                _CLASS = _build_class()
            except ImportError as exc:
                raise ImportError(f"MlsleuthCallback needs transformers ({exc}); install it with `pip install 'mlsleuth[hf]'` "
                                  "or `pip install transformers`") from exc
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
