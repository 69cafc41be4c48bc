"""``debug_training``: a prompt that walks an agent through the clue-first loop."""

# No `from __future__ import annotations`: the SDK evaluates the prompt's hints.

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

LOOP = """\
You are helping debug a model-training problem. Work clue-first: gather evidence
before touching code, keep several explanations alive, and let the cheapest
discriminating experiment decide between them.

Reported symptom: {symptom}
{where}
1. Collect clues before editing anything.
   - Run the `scan` tool on {scan_target} and read every finding; static bugs
     (probabilities fed to a loss that expects logits, gradients never zeroed,
     dropout or batch norm left in training mode at evaluation) explain many symptoms.
   - If a finding is unclear, call `explain_rule` with its rule id.
   - If the tools for runtime clues are available (`trace_training`,
     `run_diagnostics`, `locate_nan`, `compare_sweep`), use the one that fits:
     NaN or Inf -> `locate_nan`; loss flat, exploding or oddly shaped ->
     `run_diagnostics` / `trace_training`; "is setting A really better than B"
     -> `compare_sweep`.
   - Note facts, not interpretations: numbers seen, steps, modules, lines.
2. Write down at least three hypotheses that could each produce the symptom,
   ordered by prior likelihood (data and labels first, then the loss, the
   training loop, evaluation, architecture, hyperparameters, numerics).
3. For the top hypotheses, pick the single cheapest test that would tell them
   apart (overfit one small batch, shuffle the labels, print one batch, change
   one setting, run a few steps with a check enabled). Say what result each
   hypothesis predicts before running it.
4. Run that test and update the list. Repeat until one explanation survives.
5. Only then change code: make the smallest fix, rerun the same test to show
   the symptom is gone, and rerun `scan` to check nothing new appeared.

Do not paper over the symptom (no nan_to_num, no silent clipping, no lowering
the learning rate "just in case") before the cause is known. The handbook
resource `mlsleuth://skill` has the full method and the symptom tables.
"""


def render(symptom: str, code_path: str | None = None) -> str:
    symptom = " ".join(symptom.split()) or "(not described; ask the user what they see)"
    if code_path:
        where = f"Training code: {code_path}\n"
        scan_target = f"`{code_path}`"
    else:
        where = ""
        scan_target = "the project (or the training script's folder)"
    return LOOP.format(symptom=symptom, where=where, scan_target=scan_target)


def register(server: MCPServer) -> None:
    @server.prompt(
        name="debug_training",
        title="Debug a training problem, clue-first",
        description="Walk through evidence-first debugging of a training symptom (loss flat or NaN, accuracy stuck, eval worse than train...), using the mlsleuth tools to collect clues before changing code.",
    )
    def debug_training(
        symptom: Annotated[str, Field(description="What goes wrong, in the user's words, e.g. 'loss stays at 2.30 from step 0'.")],
        code_path: Annotated[str | None, Field(description="The training script or folder, relative to the served root.")] = None,
    ) -> str:
        return render(symptom, code_path)
