"""Training steps taken with the model in eval mode (child side, stdlib + torch only).

At each backward pass of the traced steps, every root model that is in eval mode (``root.training`` False) is
looked at: which of its mode-dependent modules (dropout with p > 0, batch-norm tracking running statistics) are
in eval mode *and* belong to the part being trained (a batch-norm whose own affine parameters are in an
optimizer; a dropout whose parent module has a parameter in an optimizer). A model left in eval mode by a
validation pass (or loaded with ``from_pretrained`` and never switched to ``train()``) then trains with dropout
off and batch-norm using frozen running statistics. A model whose trained part holds no such module (linear
probing on a frozen backbone, a model without dropout or batch-norm) is not recorded: eval mode changes nothing
there. Validation losses computed with gradients on but never backpropagated are not recorded either: only
backward passes count.
"""

from __future__ import annotations

from typing import Any

from run_user_script import unwrap

MAX_STEPS_WATCHED = 200
MAX_MODULES_LISTED = 10


class TrainModeWatch:
    def __init__(self) -> None:
        self.steps: list[int] = []  # primary steps with a backward while a trained model was in eval mode
        self.roots: dict[str, dict] = {}  # root label -> what was seen the first time
        self._seen_step: int | None = None

    def on_backward(self, runner: Any) -> None:
        import torch

        step = runner.step
        if step >= MAX_STEPS_WATCHED or step == self._seen_step or all(root.training for root in runner.roots):
            return
        in_optimizer = {id(p) for opt in runner.optimizers for g in opt.param_groups for p in g["params"]}
        for root in runner.roots:
            if root.training:
                continue
            modules = _inactive_trained_modules(root, in_optimizer, torch)
            if not modules:
                continue
            self._seen_step = step
            self.steps.append(step)
            label = runner.root_label(root)
            if label not in self.roots:
                self.roots[label] = {"root": label, "first_step": step, "modules": modules[:MAX_MODULES_LISTED],
                                     "count": len(modules)}
            return

    def result(self, steps_done: int) -> dict:
        return {"eval_mode_steps": self.steps[:MAX_STEPS_WATCHED], "steps_watched": min(steps_done, MAX_STEPS_WATCHED),
                "roots": list(self.roots.values())[:5]}


def _inactive_trained_modules(root: Any, in_optimizer: set[int], torch: Any) -> list[dict]:
    """Dropout / batch-norm modules of ``root`` in eval mode that sit in the trained part of the model."""
    dropout = torch.nn.modules.dropout._DropoutNd
    norm = torch.nn.modules.batchnorm._BatchNorm
    out = []
    root = unwrap(root)
    for name, m in root.named_modules():
        if m.training:
            continue
        if isinstance(m, dropout) and m.p > 0:
            parent_name = name.rsplit(".", 1)[0] if "." in name else ""
            parent = root.get_submodule(parent_name) if parent_name else root
            trained = any(id(p) in in_optimizer and p.requires_grad for p in parent.parameters(recurse=False)) or any(
                id(p) in in_optimizer and p.requires_grad for c in parent.children() if not isinstance(c, dropout)
                for p in c.parameters())
        elif isinstance(m, norm) and m.track_running_stats:
            own = [p for p in m.parameters(recurse=False) if p.requires_grad]
            trained = any(id(p) in in_optimizer for p in own)
        else:
            continue
        if trained:
            out.append({"module": name, "type": type(m).__name__})
    return out
