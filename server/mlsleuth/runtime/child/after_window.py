"""After the watched steps, let the script run on, unobserved, for a short budget (child side, stdlib + torch only).

Many bugs show only in what a script does once training is over: the "best" model restored from a state that
was never copied, a checkpoint loaded back with ``strict=False`` that matches nothing, a preempted job resumed
without its LR scheduler. A trace that stops at step N never sees them. When the config asks for it
(``after_window_s`` > 0; ``trace`` does, ``nan`` does not; never under several ranks, whose collectives could hang
if one stopped first), the runner calls :meth:`AfterWindow.begin` when the primary optimizer reaches
``max_steps`` instead of stopping the script:

1. the observers finish as if the run had stopped there (``on_end``), their results are kept as they are, and
   that payload is written at once (so a later kill still leaves the watched window's result);
2. every patch and hook of the runner is removed, so the script runs on at full speed and nothing it does now
   changes the observers' measurements;
3. only the checkpoint watch (``trace_checkpoints``), installed before the runner's patches, keeps recording,
   and the frozen-parameter watch (``after_frozen``), called from the optimizer step hooks that stay: a stage
   that freezes part of the model and leaves it in the optimizer is often reached only after the window;
4. the run stops at the script's end, at an exception, or when the budget is spent: at the next optimizer step
   after the deadline, or from a timer signal (SIGALRM, when the script does not use it itself).

The payload's status stays the watched window's (``max-steps``); what happened after it is reported under
``after_window`` (how long it ran, how it ended, the checkpoint events).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from after_frozen import FrozenStepWatch
from observer import StopTraining
from trace_checkpoints import CheckpointWatch

SHARE_OF_TIMEOUT = 0.4  # of the time left before the parent's timeout, at most, for the run after the window
MIN_BUDGET_S = 1.0


class AfterWindow:
    def __init__(self, budget_s: float, timeout_s: float | None) -> None:
        self.budget_s = float(budget_s)
        self.timeout_s = float(timeout_s) if timeout_s else None
        self.watch = CheckpointWatch()
        self.frozen = FrozenStepWatch()
        self.results: dict | None = None  # the observers' results at the end of the watched window
        self.active = False
        self.ended: str | None = None
        self._born = time.monotonic()
        self._began: float | None = None
        self._deadline: float | None = None
        self._alarm = False

    @classmethod
    def from_config(cls, config: dict) -> AfterWindow | None:
        budget = float(config.get("after_window_s") or 0)
        if budget <= 0 or os.environ.get("WORLD_SIZE", "1") not in ("", "1"):
            return None
        return cls(budget, config.get("timeout_s"))

    def install(self) -> None:
        self.watch.install()

    def uninstall(self) -> None:
        self._stop_timer()
        self.watch.uninstall()

    def budget(self) -> float:
        budget = self.budget_s
        if self.timeout_s:
            budget = min(budget, SHARE_OF_TIMEOUT * (self.timeout_s - (time.monotonic() - self._born)))
        return budget

    def begin(self, runner: Any, finish_window: Any) -> bool:
        """At max-steps: finish the observers, write their payload, and let the script run on (True), or not (False)."""
        budget = self.budget()
        if budget < MIN_BUDGET_S:
            return False
        self.results = finish_window()
        try:
            self.frozen.begin(runner)
        except Exception:  # noqa: BLE001, S110 - names are only for the report; the watch goes on without them
            pass
        runner.uninstall(keep_step_hooks=True)  # the step hooks stay (torch is iterating over them) and do nothing
        self.watch.phase = "after"
        self.active = True
        self._began = time.monotonic()
        self._deadline = self._began + budget
        self._start_timer(budget + 0.5)
        return True

    def before_step(self, opt: Any) -> None:
        """From the optimizer step pre-hook once the window is over."""
        try:
            self.frozen.before_step(opt)
        except Exception:  # noqa: BLE001 - a watch failure must not break the user's step
            self.frozen.measured = 1 << 30  # stand down

    def after_step(self, opt: Any) -> None:
        """From the optimizer step post-hook once the window is over (before the deadline check)."""
        try:
            self.frozen.after_step(opt)
        except Exception:  # noqa: BLE001 - a watch failure must not break the user's step
            self.frozen.measured = 1 << 30

    def check_deadline(self) -> None:
        """Called after every optimizer step once the window is over: stop when the budget is spent."""
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise StopTraining("after-window budget")

    def finish(self, how: str) -> None:
        if self.active:
            self._stop_timer()
            self.ended = how

    def result(self) -> dict:
        out = self.watch.result()
        if self.active:
            out.update(self.frozen.result())
            out["ran_s"] = round(time.monotonic() - (self._began or time.monotonic()), 3)
            out["ended"] = self.ended
        else:
            out["ended"] = "not run (the script ended or stopped within the watched steps, or no time was left)"
        return out

    # -- the timer ----------------------------------------------------------------------------------------------
    def _start_timer(self, seconds: float) -> None:
        if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
            return
        if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
            return  # the script uses SIGALRM itself; the optimizer-step deadline still applies

        def on_alarm(_signum, _frame):
            raise StopTraining("after-window budget")

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        self._alarm = True

    def _stop_timer(self) -> None:
        if self._alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            self._alarm = False
