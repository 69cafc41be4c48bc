"""``locate_nan``: find the step, module, operation and pass where the first NaN/Inf appears."""

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

_DESCRIPTION = """Localise where the first NaN or Inf of a training run is born.

Call this when the loss (or a metric, gradient or weight) becomes NaN or Inf,
instead of adding nan_to_num or lowering the learning rate blindly. It runs
the user's code (a training script, or FILE:FUNCTION returning a dict with
`model` and `batch`/`loader` plus `loss_fn`/`compute_loss`) until the first
non-finite value and reports the step, the module, the operation, whether it
came from the data, the forward pass, the backward pass or the optimizer
update, and the input statistics of the offending operation. This executes
the user's code and saves the offending batch and the last good snapshot
under .mlsleuth/nan/ in the served root. Cancelling the call kills the run.
"""


def register(server, env) -> None:
    @server.tool(title="Locate the first NaN/Inf", annotations=RUNS_USER_CODE, description=inspect.cleandoc(_DESCRIPTION))
    async def locate_nan(
        ctx: Context,
        target: Annotated[
            str,
            Field(min_length=1, max_length=4096, description="A training script ('train.py') or FILE:FUNCTION ('debug.py:setup'), relative to the served root (or absolute inside it)."),
        ],
        args: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=100, description="Command-line arguments (script mode only).")] = [],  # noqa: B006 - pydantic copies defaults
        max_steps: Annotated[int, Field(ge=1, le=1_000_000, description="Give up after this many optimizer steps without a NaN/Inf.")] = 1000,
        timeout_s: Annotated[float | None, Field(gt=0, description="Stop after this many seconds (capped by the server's --run-timeout).")] = None,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Return at most this many findings.")] = 50,
        nproc_per_node: Annotated[int | None, Field(ge=1, le=64, description="For DDP/FSDP scripts: launch this many ranks (like torchrun --nproc-per-node) and merge them into one report, findings labelled by rank.")] = None,
    ) -> Annotated[CallToolResult, Report]:
        from mlsleuth.runtime.nan.run import prepare_nan, split_target

        file, function = split_target(target)
        path = resolve_in_root(env.root, file, what="target file")
        resolved = f"{path}:{function}" if function else str(path)
        return as_result(await run_user_code(
            ctx,
            env,
            lambda timeout: prepare_nan(resolved, args=args, max_steps=max_steps, timeout_s=timeout, cwd=env.root,
                                         nproc_per_node=nproc_per_node),
            tool="nan",
            timeout_s=timeout_s,
            max_findings=max_findings,
        ))
