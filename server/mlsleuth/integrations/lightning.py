"""mlsleuth's trace checks inside your own PyTorch Lightning run: :class:`MlsleuthCallback`.

::

    from mlsleuth.integrations.lightning import MlsleuthCallback
    trainer = L.Trainer(..., callbacks=[MlsleuthCallback()])
    trainer.fit(model, train_loader, val_loader)
    # at the end of fit: the report is printed and written to mlsleuth-lightning.json

The callback gathers the measurements ``mlsleuth trace`` gathers (the same observer, installed in
this process from ``setup`` to the end of ``fit``) and runs the same checks on them, so its report has
the trace report's schema and check ids. Unlike ``mlsleuth trace`` it never stops the run: it watches
every step of ``fit`` (per-parameter statistics on the first 50 steps, then on every 10th) and a
non-finite loss is reported, not acted on. Under ``mlsleuth trace`` (which observes already) it does
nothing.

Lightning is imported when the class is first used (``lightning.pytorch`` if installed, else
``pytorch_lightning``; :func:`callback_class` picks one explicitly), never when mlsleuth is imported.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import time
from typing import Any

DEFAULT_REPORT_PATH = "mlsleuth-lightning.json"
PACKAGES = ("lightning.pytorch", "pytorch_lightning")
_classes: dict[str, type] = {}
_child: dict[str, Any] = {}


def child_modules() -> dict[str, Any]:
    """The trace observer's modules (``runtime/child``), loaded once into this process.

    They import each other by bare name (in a child they run as scripts), so their folder is put on
    ``sys.path`` while they load; afterwards their bare names are taken out of ``sys.modules`` again
    (a user module called ``probes`` or ``channel`` keeps its name) and the folder off ``sys.path``.
    """
    if _child:
        return _child
    from mlsleuth.runtime.common import CHILD_DIR

    folder = str(CHILD_DIR)
    own = {p[:-3] for p in os.listdir(folder) if p.endswith(".py") and p != "__init__.py"}
    saved = {name: sys.modules.pop(name) for name in own if name in sys.modules}
    sys.path.insert(0, folder)
    try:
        _child["run_user_script"] = importlib.import_module("run_user_script")
        _child["trace_observer"] = importlib.import_module("trace_observer")
        _child["channel"] = importlib.import_module("channel")
    finally:
        sys.path.remove(folder)
        for name in own:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return _child


def build_report(data: dict[str, Any], *, path: str | None, steps: int, status: str, extra_stats: dict | None = None):
    """A trace :class:`~mlsleuth.report.Report` from the trace observer's measurements (the same checks as ``mlsleuth trace``)."""
    from mlsleuth.report import Report
    from mlsleuth.runtime.ranking import rank
    from mlsleuth.runtime.trace.run import trace_findings

    report = Report(tool="trace")
    command = f"mlsleuth trace {path or 'SCRIPT'}"
    report.findings.extend(trace_findings(data, path=path, command=command))
    report.findings = rank(report.findings, "trace")
    stats: dict[str, Any] = {"source": "MlsleuthCallback", "status": status, "steps_traced": steps}
    if data.get("losses"):
        stats["loss_first"], stats["loss_last"] = data["losses"][0], data["losses"][-1]
    if data.get("stages"):
        stats["stages"] = data["stages"]
    stats.update(extra_stats or {})
    report.finalize(stats=stats, sort=False)
    report.summary.text = f"{report.default_text()}; watched {steps} optimizer step(s) of Trainer.fit ({status})"
    return report


class _Watch:
    """The observation itself, framework-free: install on torch, take it off, turn it into a report."""

    def __init__(self) -> None:
        mods = child_modules()
        self.observer = mods["trace_observer"].TraceObserver({})
        self.runner = mods["run_user_script"].Runner([self.observer], None)
        self.stops: list[str] = []
        self.runner.request_stop = self.stops.append  # report, never stop the user's run
        self.started = time.monotonic()

    def start(self) -> None:
        self.runner.install()
        self.runner.notify("on_start")

    def finish(self, status: str, path: str | None):
        try:
            self.runner.notify("on_end", status)
            data = child_modules()["channel"].jsonable(self.observer.result())
        finally:
            self.runner.uninstall()
        extra = {"duration_s": round(time.monotonic() - self.started, 3)}
        if self.runner.observer_errors:
            extra["observer_errors"] = len(self.runner.observer_errors)
        return build_report(data, path=path, steps=self.runner.step, status=status, extra_stats=extra)


def _source_path(pl_module: Any) -> str | None:
    try:
        path = inspect.getsourcefile(type(pl_module))
    except TypeError:
        return None
    if path is None:
        return None
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def callback_class(package: str | None = None) -> type:
    """The callback class for ``package`` (``'lightning.pytorch'`` or ``'pytorch_lightning'``; default: the one installed)."""
    names = (package,) if package else PACKAGES
    last_error: Exception | None = None
    for name in names:
        if name in _classes:
            return _classes[name]
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            last_error = exc
            continue
        _classes[name] = _make_class(module.Callback)
        return _classes[name]
    raise ImportError(f"MlsleuthCallback needs PyTorch Lightning: pip install lightning ({last_error})")


def _make_class(base: type) -> type:
    class MlsleuthCallback(base):  # type: ignore[misc, valid-type]
        """Runs mlsleuth's trace checks on this ``Trainer.fit`` and reports at its end.

        ``report_path``: where the JSON report goes (None: not written); ``print_report``: print the
        text report at the end of fit. The last report is kept in ``self.report``.
        """

        def __init__(self, report_path: str | None = DEFAULT_REPORT_PATH, print_report: bool = True) -> None:
            super().__init__()
            self.report_path = report_path
            self.print_report = print_report
            self.report = None
            self._watch: _Watch | None = None
            self._path: str | None = None

        def setup(self, trainer: Any, pl_module: Any, stage: str) -> None:
            if stage != "fit" or self._watch is not None or os.environ.get("MLSLEUTH_RESULT"):
                return  # only fit is watched; under `mlsleuth trace` the run is observed already
            self._path = _source_path(pl_module)
            self._watch = _Watch()
            self._watch.start()

        def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
            self._finish("finished")

        def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
            self._finish("exception")

        def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
            if stage == "fit":
                self._finish("finished")

        def _finish(self, status: str) -> None:
            watch, self._watch = self._watch, None
            if watch is None:
                return
            self.report = watch.finish(status, self._path)
            from mlsleuth.render import render_json, render_text

            if self.report_path:
                with open(self.report_path, "w", encoding="utf-8") as fh:
                    fh.write(render_json(self.report))
            if self.print_report:
                print(render_text(self.report), file=sys.stderr)

    return MlsleuthCallback


def __getattr__(name: str) -> Any:
    if name == "MlsleuthCallback":
        return callback_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
