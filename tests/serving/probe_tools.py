"""A probe tool for the MCP tests (loaded through MLSLEUTH_EXTRA_TOOLS).

``probe_child`` runs a tiny script through the same generic PreparedRun runner
the runtime tools use. The script starts a grandchild (like a data-loader
worker; in mode "stubborn" one that ignores SIGTERM), records both pids, reports progress, sleeps, then succeeds or raises.
Tests use it to check progress forwarding, error reports and that a cancel
kills the whole process group. It is not part of the shipped server.
"""

import sys
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from mlsleuth.report import ErrorEntry, Finding, Report
from pydantic import Field

SCRIPT = r'''
import json, os, subprocess, sys, time
pidfile, seconds, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if mode == "stubborn":  # a worker that ignores SIGTERM (ready once its handler is set)
    grandchild = subprocess.Popen([sys.executable, "-c", "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                   "open(sys.argv[1], 'w').close(); time.sleep(600)", pidfile + ".ready"])
    deadline = time.monotonic() + 30
    while not os.path.exists(pidfile + ".ready") and time.monotonic() < deadline:
        time.sleep(0.01)
else:
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(pidfile + ".tmp", "w") as fh:
    fh.write(f"{os.getpid()} {grandchild.pid}")
os.replace(pidfile + ".tmp", pidfile)
steps = max(1, int(seconds * 10))
for i in range(steps):
    with open(os.environ["MLSLEUTH_PROGRESS"], "a") as fh:
        fh.write(json.dumps({"message": f"step {i}", "done": i + 1, "total": steps}) + "\n")
    time.sleep(0.1)
grandchild.kill()
if mode == "fail":
    raise RuntimeError("user code exploded at step %d" % steps)
with open(os.environ["MLSLEUTH_RESULT"], "w") as fh:
    json.dump({"steps": steps}, fh)
'''


def prepare_probe(workdir: Path, seconds: float, mode: str, timeout_s: float):
    from mlsleuth.process_runner import ChildRun
    from mlsleuth.runtime.prepared import PreparedRun

    script = workdir / "probe_script.py"
    script.write_text(SCRIPT)
    pidfile = workdir / "pids.txt"
    child = ChildRun([sys.executable, str(script), str(pidfile), str(seconds), mode], cwd=workdir, timeout_s=timeout_s)

    def to_report(result) -> Report:
        report = Report(tool="probe")
        if result.result is not None:
            report.findings.append(
                Finding(rule="probe-finished", category="environment", severity="info", message=f"ran {result.result['steps']} steps", measurements=result.result)
            )
        else:
            report.errors.append(ErrorEntry(kind="child-failed", message=f"the probe {result.describe_end()}", detail=result.stderr_tail))
        return report.finalize()

    return PreparedRun(tool="probe", child=child, to_report=to_report, description="probe")


def register(server, env) -> None:
    from mlsleuth.serving.running import run_prepared

    register_pid_tool(server)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False))
    async def probe_child(
        ctx: Context,
        workdir: Annotated[str, Field(description="scratch folder (absolute; test only)")],
        seconds: float = 0.5,
        mode: Literal["ok", "fail", "stubborn"] = "ok",
        timeout_s: float = 60.0,
    ) -> Report:
        """Test probe: run a sleeping child through the PreparedRun runner."""
        prepared = prepare_probe(Path(workdir), seconds, mode, timeout_s)
        return await run_prepared(prepared, ctx, tool="probe", what="probe")


def register_pid_tool(server) -> None:
    import os

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False))
    def server_pid() -> int:
        """Test probe: the server process id (to read its memory use from /proc)."""
        return os.getpid()
