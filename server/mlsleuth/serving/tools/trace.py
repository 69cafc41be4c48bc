"""``trace_training``: run the user's training script for a few steps under observation."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import inspect
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from mlsleuth.report import Report
from mlsleuth.serving.bounding import MAX_FINDINGS_CAP, as_result
from mlsleuth.serving.paths import resolve_in_root
from mlsleuth.serving.tools._runtime import RUNS_USER_CODE, run_user_code

_DESCRIPTION = """Run the project's training script for a few optimizer steps and watch it.

Call this when the code looks right but training still misbehaves (loss flat,
exploding or noisy; accuracy at chance; gradients suspected), after `scan`.
It runs the script as-is (its own interpreter and virtual environment, the
served root as working directory) and records the call order of zero_grad /
backward / step, gradient and activation statistics, the loss and learning
rate per step, and train/eval mode; then reports what looks wrong with the
numbers that show it. This executes the user's code: it may write whatever
the script writes. The run is stopped after `steps` optimizer steps or the
timeout; cancelling the call kills it.
"""


def register(server, env) -> None:
    @server.tool(title="Trace a training run", annotations=RUNS_USER_CODE, description=inspect.cleandoc(_DESCRIPTION))
    async def trace_training(
        ctx: Context,
        script: Annotated[str, Field(min_length=1, max_length=4096, description="The training script, relative to the served root (or absolute inside it), e.g. 'train.py'.")],
        args: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=100, description="Command-line arguments for the script.")] = [],  # noqa: B006 - pydantic copies defaults
        steps: Annotated[int, Field(ge=1, le=2000, description="Stop after this many optimizer steps.")] = 20,
        timeout_s: Annotated[float | None, Field(gt=0, description="Stop after this many seconds (capped by the server's --run-timeout).")] = None,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Return at most this many findings.")] = 50,
        nproc_per_node: Annotated[int | None, Field(ge=1, le=64, description="For DDP/FSDP scripts: launch this many ranks (like torchrun --nproc-per-node) and merge them into one report, findings labelled by rank.")] = None,
    ) -> Annotated[CallToolResult, Report]:
        from mlsleuth.runtime.trace import prepare_trace

        path = resolve_in_root(env.root, script, what="script")
        return as_result(await run_user_code(
            ctx,
            env,
            lambda timeout: prepare_trace(path, args=args, steps=steps, timeout_s=timeout, cwd=env.root,
                                           nproc_per_node=nproc_per_node),
            tool="trace",
            timeout_s=timeout_s,
            max_findings=max_findings,
        ))
