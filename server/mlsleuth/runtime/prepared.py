"""The shared hand-off between a runtime tool and whoever runs it.

Every runtime tool (``trace``, ``diagnose``, ``nan``) follows one pattern::

    prepared = prepare_trace(...)            # validates input, builds the child; starts nothing
    result = prepared.child.wait()           # CLI: blocking
    result = await prepared.child.wait_async(on_progress)   # MCP server: cancellable
    report = prepared.to_report(result)      # the shared Report, never an exception

``prepare_*`` raises :class:`mlsleuth.cli.UsageError`-style ``ValueError``
subclasses for input the user can fix (see each tool); ``to_report`` turns every
way the child can end (clean, user exception, crash, hang, out of memory) into a
:class:`~mlsleuth.report.Report` with findings and/or error entries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # keep imports light: pydantic models are imported by the callers anyway
    from mlsleuth.process_runner import ChildResult, ChildRun
    from mlsleuth.report import Report


@dataclass
class PreparedRun:
    """A child process ready to start, and how to read what it reports.

    Attributes:
        tool: the tool name as it appears in ``Report.tool`` ('trace', 'diagnose', 'nan').
        child: an *unstarted* :class:`~mlsleuth.process_runner.ChildRun`.
        to_report: turns the :class:`~mlsleuth.process_runner.ChildResult` into a Report.
        description: one line for progress displays, e.g. ``"trace train.py (20 steps)"``.
        total_steps: how many units of progress to expect (for progress bars), if known.
        info: what was decided before starting (interpreter, why it was chosen, ...);
            ``to_report`` copies it into ``summary.stats``.
    """

    tool: str
    child: ChildRun
    to_report: Callable[[ChildResult], Report]
    description: str = ""
    total_steps: int | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def run(self, on_progress: Callable[[dict[str, Any]], None] | None = None) -> Report:
        """Blocking convenience: start the child, wait for it, build the report."""
        return self.to_report(self.child.wait(on_progress))

    async def run_async(self, on_progress: Callable[[dict[str, Any]], None] | None = None) -> Report:
        """Async convenience for the MCP server: cancelling the awaiting task kills the child's group."""
        return self.to_report(await self.child.wait_async(on_progress))
