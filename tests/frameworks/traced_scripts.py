"""Run mlsleuth's scan and trace on the per-framework scripts (``<framework>/scripts/*.py``) for the end-to-end tests."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def script(framework: str, name: str) -> Path:
    return HERE / framework / "scripts" / name


def scanned(framework: str, name: str) -> list:
    """The scan findings on one script (in this process, no cache, one worker)."""
    from mlsleuth.config import Config
    from mlsleuth.scan.engine import scan_paths

    path = script(framework, name)
    report = scan_paths([path], root=path.parent, config=Config(), use_cache=False, jobs=1)
    assert report.errors == [], [e.message for e in report.errors]
    return report.findings


def traced(framework: str, name: str, steps: int = 12):
    """The trace report of one script (a child process; the caller's test is ``slow``)."""
    from mlsleuth.runtime.trace import trace

    path = script(framework, name)
    return trace(path, steps=steps, cwd=path.parent, timeout_s=240)


def flagged(findings: list) -> set[str]:
    """The rule ids of the warnings and errors."""
    return {f.rule for f in findings if f.severity in ("error", "warning")}
