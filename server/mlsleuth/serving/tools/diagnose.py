"""``run_diagnostics``: the cheap check battery on a model the user's setup function builds."""

# No `from __future__ import annotations`: the SDK evaluates these hints.

import inspect
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from mlsleuth.report import Report
from mlsleuth.serving.bounding import MAX_FINDINGS_CAP, as_result
from mlsleuth.serving.paths import resolve_in_root
from mlsleuth.serving.tools._runtime import RUNS_USER_CODE, run_user_code

_DESCRIPTION = """Run the standard sanity checks on a model: overfit one batch, the loss at initialisation, gradient flow, dead units, data/label checks, and (optionally) a learning-rate range test.

Call this when the loss will not go down, plateaus at chance (e.g. ln C),
or the model learns on one setup but not another, and you want to know
whether the model, the loss, the data or the optimiser is at fault. The
target is FILE:FUNCTION: a zero-argument function in the user's code that
returns a dict with `model` (an nn.Module), `batch` ((inputs, targets) or a
dict) or `loader`, and `loss_fn(outputs, targets)` or
`compute_loss(model, batch)` (which may return a dict of named loss terms,
such as a PINN's residual and boundary terms: each term's value, gradient
norm and share are reported); optionally `optimizer` (params -> optimizer),
`num_classes`, `task`, `time_dim`. If no such function exists yet, write one
next to the training code first. The inputs are fed as model(*inputs) for a
tuple/list, model(**inputs) for a dict, else model(inputs). Runs are seeded,
so the same code gives the same verdict. This executes the user's code in a
child process under a timeout; cancelling the call kills it.
"""


def register(server, env) -> None:
    @server.tool(title="Run training diagnostics", annotations=RUNS_USER_CODE, description=inspect.cleandoc(_DESCRIPTION))
    async def run_diagnostics(
        ctx: Context,
        target: Annotated[str, Field(min_length=3, max_length=4096, description="FILE:FUNCTION, FILE relative to the served root (or absolute inside it), e.g. 'debug_setup.py:setup'.")],
        steps: Annotated[int, Field(ge=10, le=20_000, description="Step budget for the overfit-one-batch check.")] = 200,
        lr_range: Annotated[bool, Field(description="Also run a learning-rate range test (slower).")] = False,
        seed: Annotated[int, Field(ge=0, lt=2**32, description="Seed of Python's, torch's and numpy's generators.")] = 0,
        timeout_s: Annotated[float | None, Field(gt=0, description="Stop after this many seconds (capped by the server's --run-timeout).")] = None,
        max_findings: Annotated[int, Field(ge=1, le=MAX_FINDINGS_CAP, description="Return at most this many findings.")] = 50,
    ) -> Annotated[CallToolResult, Report]:
        from mlsleuth.runtime.diagnose import prepare_diagnose

        file, sep, function = target.rpartition(":")
        if not sep or not file or not function.isidentifier():
            raise ToolError(
                f"target must be FILE:FUNCTION (e.g. 'debug_setup.py:setup'), got {target!r}; the function takes no "
                f"arguments and returns a dict with `model`, `batch` or `loader`, and `loss_fn` or `compute_loss`"
            )
        path = resolve_in_root(env.root, file, what="target file")
        return as_result(await run_user_code(
            ctx,
            env,
            lambda timeout: prepare_diagnose(f"{path}:{function}", steps=steps, lr_range=lr_range, timeout_s=timeout, cwd=env.root, seed=seed),
            tool="diagnose",
            timeout_s=timeout_s,
            max_findings=max_findings,
        ))
