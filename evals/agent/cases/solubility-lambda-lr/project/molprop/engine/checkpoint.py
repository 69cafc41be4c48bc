"""Saving and restoring training state."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import torch

from ..utils.logging import get_logger

log = get_logger()
_STEP_RE = re.compile(r"step_(\d+)\.pt$")


class CheckpointManager:
    """Writes ``step_<N>.pt`` files plus ``best.pt`` / ``last.pt`` into a directory, keeping the newest ``keep``."""

    def __init__(self, directory: str | Path, keep: int = 2):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.keep = keep

    def _payload(self, trainer, extra: dict | None = None) -> dict:
        payload = {
            "model": trainer.model.state_dict(),
            "optimizer": trainer.optimizer.state_dict(),
            "scheduler": trainer.scheduler.state_dict() if trainer.scheduler is not None else None,
            "epoch": trainer.state.epoch,
            "global_step": trainer.state.global_step,
            "best_metric": trainer.state.best_metric,
            "config": trainer.cfg.to_dict(),
            "rng": torch.get_rng_state(),
        }
        payload.update(extra or {})
        return payload

    def save(self, trainer, tag: str | None = None, extra: dict | None = None) -> Path:
        name = f"{tag}.pt" if tag else f"step_{trainer.state.global_step}.pt"
        path = self.dir / name
        tmp = path.with_suffix(".tmp")
        torch.save(self._payload(trainer, extra), tmp)
        os.replace(tmp, path)
        if tag is None:
            self._prune()
        return path

    def _prune(self) -> None:
        steps = sorted(self.dir.glob("step_*.pt"), key=lambda p: int(_STEP_RE.search(p.name).group(1)))
        for old in steps[: max(0, len(steps) - self.keep)]:
            old.unlink(missing_ok=True)

    def latest(self) -> Path | None:
        last = self.dir / "last.pt"
        if last.exists():
            return last
        steps = sorted(self.dir.glob("step_*.pt"), key=lambda p: int(_STEP_RE.search(p.name).group(1)))
        return steps[-1] if steps else None

    def restore(self, trainer, path: str | Path | None = None, weights_only: bool = False) -> dict[str, Any]:
        path = Path(path) if path else self.latest()
        if path is None or not path.exists():
            raise FileNotFoundError(f"no checkpoint to resume from in {self.dir}")
        state = torch.load(path, map_location="cpu", weights_only=False)
        trainer.model.load_state_dict(state["model"])
        if not weights_only:
            trainer.optimizer.load_state_dict(state["optimizer"])
            if trainer.scheduler is not None and state.get("scheduler") is not None:
                trainer.scheduler.load_state_dict(state["scheduler"])
            trainer.state.epoch = state["epoch"]
            trainer.state.global_step = state["global_step"]
            trainer.state.best_metric = state.get("best_metric")
        log.info("restored %s (epoch %d, step %d)", path.name, state["epoch"], state["global_step"])
        return state


def load_weights(model: torch.nn.Module, path: str | Path, strict: bool = True) -> dict:
    state = torch.load(path, map_location="cpu", weights_only=False)
    missing, unexpected = model.load_state_dict(state["model"], strict=strict)
    if missing or unexpected:
        log.warning("load_weights: missing=%s unexpected=%s", missing, unexpected)
    return state


def average_checkpoints(paths: list[str | Path]) -> dict:
    """Uniform average of the model weights in several checkpoints (float tensors only)."""
    avg: dict[str, torch.Tensor] = {}
    for i, path in enumerate(paths):
        weights = torch.load(path, map_location="cpu", weights_only=False)["model"]
        for key, value in weights.items():
            if not value.is_floating_point():
                avg[key] = value
            elif key not in avg:
                avg[key] = value.clone().double()
            else:
                avg[key] += (value.double() - avg[key]) / (i + 1)
    return {k: v.float() if v.is_floating_point() else v for k, v in avg.items()}
