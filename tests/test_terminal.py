"""Colour and the progress line: on a terminal only, never in piped output; NO_COLOR / FORCE_COLOR / --color.

The terminal cases run mlsleuth with a pseudo-terminal (the ``pty`` module) as its standard error or
output, so ``isatty()`` is really true there, as in a user's shell.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from mlsleuth.commands.terminal import ProgressLine, want_color

BUGGY = "import math\n\n\ndef check(loss):\n    if loss == math.nan:\n        raise RuntimeError('nan')\n"
ESC = "\x1b["


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def scan(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlsleuth", "scan", "a.py", "--no-cache", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120, env=_clean_env(**env))


@pytest.fixture
def buggy(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(BUGGY, encoding="utf-8")
    return tmp_path


# -- colour ------------------------------------------------------------------------------------
def test_piped_output_is_plain_by_default(buggy):
    proc = scan(buggy)
    assert proc.returncode == 1 and "nan-equality-check" in proc.stdout
    assert ESC not in proc.stdout + proc.stderr


def test_color_always_and_force_color_colour_a_pipe(buggy):
    for proc in (scan(buggy, "--color", "always"), scan(buggy, FORCE_COLOR="1")):
        assert f"{ESC}1;31merror{ESC}0m" in proc.stdout
        plain = proc.stdout.replace(f"{ESC}0m", "")
        for code in ("1", "2", "1;31", "35"):
            plain = plain.replace(f"{ESC}{code}m", "")
        assert plain == scan(buggy).stdout  # the same report, only painted


@pytest.mark.parametrize("value", ["1", "true", "0"])  # any non-empty value disables colour, even "0"
def test_no_color_wins_over_force_color_and_auto(buggy, value):
    assert ESC not in scan(buggy, NO_COLOR=value, FORCE_COLOR="1").stdout


def test_empty_no_color_does_not_disable(buggy):
    assert ESC in scan(buggy, NO_COLOR="", FORCE_COLOR="1").stdout


def test_explicit_flags_beat_the_environment(buggy):
    assert ESC in scan(buggy, "--color", "always", NO_COLOR="1").stdout
    assert ESC not in scan(buggy, "--color", "never", FORCE_COLOR="1").stdout


def test_only_text_is_coloured(buggy):
    for fmt in ("json", "sarif", "github"):
        assert ESC not in scan(buggy, "--format", fmt, "--color", "always").stdout


def test_report_to_a_file_is_plain_in_auto_mode(buggy):
    scan(buggy, "-o", "out.txt", FORCE_COLOR="")
    assert "nan-equality-check" in (buggy / "out.txt").read_text(encoding="utf-8")
    assert ESC not in (buggy / "out.txt").read_text(encoding="utf-8")


def _run_on_pty(argv: list[str], cwd: Path, *, pty_for: str, env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``argv`` with a pseudo-terminal as its stdout or stderr; return (status, terminal text, other stream)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    chunks: list[bytes] = []

    def pump() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO once the child and our copy of the slave are closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    kwargs = {"stdout": slave, "stderr": subprocess.PIPE} if pty_for == "stdout" else {"stderr": slave, "stdout": subprocess.PIPE}
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, **kwargs)
    os.close(slave)
    other = (proc.stderr if pty_for == "stdout" else proc.stdout).read()
    status = proc.wait(timeout=300)
    reader.join(timeout=10)
    os.close(master)
    return status, b"".join(chunks).decode("utf-8", "replace"), other.decode("utf-8", "replace")


def test_auto_colours_a_real_terminal(buggy):
    status, shown, _ = _run_on_pty([sys.executable, "-m", "mlsleuth", "scan", "a.py", "--no-cache"], buggy, pty_for="stdout", env=_clean_env())
    assert status == 1 and f"{ESC}1;31merror" in shown
    _, shown, _ = _run_on_pty([sys.executable, "-m", "mlsleuth", "scan", "a.py", "--no-cache"], buggy, pty_for="stdout", env=_clean_env(NO_COLOR="1"))
    assert "nan-equality-check" in shown and ESC not in shown


def test_want_color_rules():
    tty, pipe = type("T", (), {"isatty": lambda self: True})(), io.StringIO()
    assert want_color("auto", tty, {}) and not want_color("auto", pipe, {})
    assert not want_color("auto", tty, {"NO_COLOR": "x"}) and want_color("auto", pipe, {"FORCE_COLOR": "1"})
    assert want_color("auto", tty, {"NO_COLOR": ""})
    assert want_color("always", pipe, {"NO_COLOR": "1"}) and not want_color("never", tty, {"FORCE_COLOR": "1"})


# -- the progress line -------------------------------------------------------------------------
def _drain(fd: int) -> str:
    import select

    out = b""
    while select.select([fd], [], [], 0.3)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    return out.decode("utf-8")


def test_progress_line_draws_on_a_terminal_and_wipes_itself():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    stream = os.fdopen(slave, "w", encoding="utf-8")
    try:
        with ProgressLine("trace", stream) as line:
            assert line.enabled
            line.event({"message": "step 3", "done": 3, "total": 10, "step": 3})
            time.sleep(ProgressLine.MIN_REDRAW_S + 0.05)
            line.event({"message": "replaying step 7 with operation-level instrumentation"})
        stream.flush()
        shown = _drain(master)
    finally:
        stream.close()
        os.close(master)
    assert "mlsleuth trace: step 3/10 · 0s elapsed" in shown
    assert "replaying step 7 with operation-level instrumentation 3/10" in shown
    assert shown.endswith("\r\x1b[K")  # nothing is left on the line
    assert "\n" not in shown  # one updating line, never a scrolling log


def test_progress_line_is_silent_when_not_a_terminal():
    sink = io.StringIO()
    with ProgressLine("nan", sink) as line:
        line.event({"message": "step 1", "done": 1, "total": 2})
        line.scan_progress(10, 100)
    assert sink.getvalue() == ""


def test_progress_line_is_cut_to_the_terminal_width():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 40, 0, 0))
    stream = os.fdopen(slave, "w", encoding="utf-8")
    try:
        with ProgressLine("diagnose", stream) as line:
            line.event({"message": "overfit step 12 " + "x" * 200, "done": 12, "total": 200})
        stream.flush()
        shown = _drain(master)
    finally:
        stream.close()
        os.close(master)
    assert all(len(part) <= 39 for part in shown.replace("\x1b[K", "").split("\r"))


@pytest.fixture
def big_tree(tmp_path: Path) -> Path:
    for i in range(60):  # the scan's line appears from 50 checked files on
        (tmp_path / f"m{i:02d}.py").write_text(BUGGY, encoding="utf-8")
    return tmp_path


def test_a_big_scan_shows_progress_on_a_terminal(big_tree):
    argv = [sys.executable, "-m", "mlsleuth", "scan", ".", "--no-cache", "-j", "1"]
    status, shown, stdout = _run_on_pty(argv, big_tree, pty_for="stderr", env=_clean_env())
    assert status == 1 and stdout.count("nan-equality-check") == 60
    assert re.search(r"mlsleuth scan: files \d+/60 · \d+s elapsed", shown), shown
    assert shown.endswith("\r\x1b[K")


def test_a_piped_scan_and_quiet_scan_print_no_progress(big_tree):
    proc = subprocess.run([sys.executable, "-m", "mlsleuth", "scan", ".", "--no-cache", "-j", "1"], cwd=big_tree,
                          capture_output=True, text=True, timeout=120, env=_clean_env())
    assert proc.returncode == 1 and proc.stderr == ""
    argv = [sys.executable, "-m", "mlsleuth", "scan", ".", "--no-cache", "-j", "1", "-q"]
    _, shown, _ = _run_on_pty(argv, big_tree, pty_for="stderr", env=_clean_env())
    assert shown == ""


TRACE_SCRIPT = """
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(12):
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.slow
def test_trace_progress_on_a_terminal_and_silence_when_piped(tmp_path):
    (tmp_path / "train.py").write_text(TRACE_SCRIPT, encoding="utf-8")
    argv = [sys.executable, "-m", "mlsleuth", "trace", "train.py", "--steps", "10", "--exit-zero"]
    status, shown, stdout = _run_on_pty(argv, tmp_path, pty_for="stderr", env=_clean_env(OMP_NUM_THREADS="1"))
    assert status == 0, shown + stdout
    assert "mlsleuth trace: " in shown and "elapsed" in shown
    assert shown.endswith("\r\x1b[K")
    piped = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=_clean_env(OMP_NUM_THREADS="1"))
    assert piped.returncode == 0
    assert "\r" not in piped.stderr and "elapsed" not in piped.stderr


@pytest.mark.slow
def test_diagnose_progress_names_the_phases_on_a_terminal(tmp_path):
    cases = Path(__file__).resolve().parent / "diagnose_cases"
    argv = [sys.executable, "-m", "mlsleuth", "diagnose", f"{cases / 'models.py'}:healthy", "--steps", "60", "--exit-zero"]
    status, shown, stdout = _run_on_pty(argv, tmp_path, pty_for="stderr", env=_clean_env(OMP_NUM_THREADS="1"))
    assert status == 0, shown + stdout
    assert "\r\x1b[Kmlsleuth diagnose: starting diagnose " in shown
    assert "mlsleuth diagnose: calling the setup function · " in shown
    assert "mlsleuth diagnose: input ablation (real, shuffled, random inputs) · " in shown
    assert shown.endswith("\r\x1b[K")
