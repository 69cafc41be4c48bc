"""What the CLI does differently on a terminal: colour and a progress line.

Colour (``--color auto|always|never``): ``always`` and ``never`` are obeyed as given; ``auto``
colours only when the output is a terminal, never when ``NO_COLOR`` is set to a non-empty value
(https://no-color.org), and always when ``FORCE_COLOR`` is (NO_COLOR wins when both are set).

Progress: :class:`ProgressLine` keeps one line on standard error up to date (what runs, how far,
the seconds elapsed) and wipes it when the work ends. It draws nothing unless standard error is a
terminal, so piped or redirected output never contains it. The runtime tools feed it the same
progress events their MCP tools turn into progress notifications.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, TextIO

COLOR_CHOICES = ("auto", "always", "never")


def want_color(choice: str, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour text written to ``stream`` for ``--color choice``."""
    env = os.environ if environ is None else environ
    if choice == "always":
        return True
    if choice == "never" or env.get("NO_COLOR", ""):
        return False
    if env.get("FORCE_COLOR", ""):
        return True
    return _is_tty(stream)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed or replaced streams
        return False


class ProgressLine:
    """One self-overwriting status line on a terminal's standard error; silent anywhere else.

    Use as a context manager; call :meth:`update` (scan: files done) or :meth:`event` (a runtime
    child's progress event). A background thread redraws once a second so the elapsed time moves
    during long phases without events. The line is cut to the terminal's width, so it never wraps.
    """

    TICK_S = 1.0
    MIN_REDRAW_S = 0.1

    def __init__(self, label: str, stream: TextIO | None = None, *, enabled: bool | None = None, min_total: int = 0, phase: str = "") -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _is_tty(self.stream) if enabled is None else enabled
        self.min_total = min_total  # scan: no line for a handful of files
        self.phase = phase
        self.done: float | None = None
        self.total: float | None = None
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    # -- feeding ---------------------------------------------------------------------------
    def update(self, done: float | None = None, total: float | None = None, phase: str | None = None) -> None:
        new_phase = phase is not None and phase != self.phase
        if phase is not None:
            self.phase = phase
        if done is not None:
            self.done = done
        if total is not None:
            self.total = total
        self._draw(force=new_phase)  # a new phase shows at once; counts are redrawn at most 10 times a second

    def scan_progress(self, done: int, total: int) -> None:
        """The scan engine's ``progress(done, total)`` callback."""
        self.update(done, total, phase="files")

    def event(self, event: Mapping[str, Any]) -> None:
        """A runtime child's progress event: ``message``, and ``done``/``total`` when it knows them."""
        message = event.get("message")
        done, total = event.get("done"), event.get("total")
        self.update(
            done if isinstance(done, (int, float)) else None,
            total if isinstance(total, (int, float)) and total > 0 else None,
            phase=message[:200] if isinstance(message, str) and message else None,
        )

    # -- drawing ---------------------------------------------------------------------------
    def text(self) -> str:
        """``mlsleuth trace: step 12/30 · 4s elapsed`` (the phase, how far, the time since the start)."""
        head = f"mlsleuth {self.label}: {self.phase or 'running'}"
        if self.done is not None and self.total:
            count = f"{self.done:g}"
            head = f"{head}/{self.total:g}" if self.phase.endswith(" " + count) else f"{head} {count}/{self.total:g}"
        return f"{head} · {time.monotonic() - self._started:.0f}s elapsed"

    def _width(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        return max(20, columns - 1) if columns > 0 else 79  # a terminal that reports no size (0) gets 79

    def _draw(self, *, force: bool = False) -> None:
        if not self.enabled or self._stop.is_set():
            return
        if self.min_total and not (self.total and self.total >= self.min_total):
            return  # a small scan ends before a line would help
        now = time.monotonic()
        if not force and self._shown and now - self._drawn_at < self.MIN_REDRAW_S:
            return
        with self._lock:
            try:
                self.stream.write("\r\033[K" + self.text()[: self._width()])
                self.stream.flush()
            except (OSError, ValueError):
                self.enabled = False
                return
            self._drawn_at = now
            self._shown = True

    def _tick(self) -> None:
        while not self._stop.wait(self.TICK_S):
            self._draw(force=True)

    def clear(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
        if self._shown:
            with self._lock:
                try:
                    self.stream.write("\r\033[K")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
            self._shown = False

    def __enter__(self) -> ProgressLine:
        if self.enabled:
            if not self.min_total:
                self._draw(force=True)
            self._ticker = threading.Thread(target=self._tick, name="mlsleuth-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.clear()
