"""Which stage of a framework's run a call belongs to: sanity check, training, validation, test, predict.

Child side (stdlib only; the framework is never imported here, only looked up in ``sys.modules``).
A PyTorch Lightning ``Trainer`` runs validation (and a *sanity check*: a few validation batches
before the first training step) inside ``fit``, so a plain script's rule "a loss call with
gradients on is training" does not separate the stages well enough for the training-only checks
(a softmax fed to the training loss, the loss trend, class balance). :class:`StageTracker` asks the
running trainer: it finds it once by walking the call stack up to the frame whose ``self`` is a
Lightning ``Trainer`` (``fit``/``validate``/``test`` keep that frame alive for their whole run), keeps
it while its status is ``running`` and reads ``trainer.state.stage`` on every question (one
attribute read). Without Lightning loaded, ``current()`` is ``None`` and the observers behave as
for a plain script.

It also reads the trainer's settings that change what a step is (``accumulate_grad_batches``,
``gradient_clip_val``, automatic optimization) for the report.
"""

from __future__ import annotations

import sys
from typing import Any

TRAINING = "train"
STAGES = ("sanity_check", "train", "validate", "test", "predict")
LIGHTNING_MODULES = ("lightning.pytorch", "pytorch_lightning")
MAX_FRAMES = 200
MAX_CALLS_PER_STAGE = 10_000_000


def _is_trainer(obj: Any) -> bool:
    try:
        mro = type(obj).__mro__
    except AttributeError:
        return False
    return any(c.__name__ == "Trainer" and c.__module__.startswith(LIGHTNING_MODULES) for c in mro)


def _running(trainer: Any) -> bool:
    try:
        return str(getattr(trainer.state.status, "value", trainer.state.status)) == "running"
    except AttributeError:
        return False


class StageTracker:
    """The stage of the current call under a running Lightning ``Trainer`` (None outside one)."""

    def __init__(self) -> None:
        self._trainer: Any = None
        self.framework: str | None = None
        self.counts: dict[str, dict[str, int]] = {}  # stage -> {"loss_calls": n, "forwards": n, "backwards": n}
        self.settings: dict[str, Any] | None = None

    def _lightning_loaded(self) -> bool:
        modules = sys.modules  # asked on every loss call, forward and backward: no generator
        return LIGHTNING_MODULES[0] in modules or LIGHTNING_MODULES[1] in modules

    def _find_trainer(self) -> Any:
        frame = sys._getframe(2)
        depth = 0
        while frame is not None and depth < MAX_FRAMES:
            candidate = frame.f_locals.get("self")
            if candidate is not None and _is_trainer(candidate):
                return candidate
            frame = frame.f_back
            depth += 1
        return None

    def trainer(self) -> Any:
        """The running Lightning trainer, or None."""
        trainer = self._trainer
        if trainer is not None and _running(trainer):
            return trainer
        self._trainer = None
        if not self._lightning_loaded():
            return None
        trainer = self._find_trainer()
        if trainer is None or not _running(trainer):
            return None
        self._trainer = trainer
        self.framework = "lightning"
        if self.settings is None:
            self.settings = _settings(trainer)
        return trainer

    def current(self) -> str | None:
        """``'sanity_check'``, ``'train'``, ``'validate'``, ``'test'``, ``'predict'``, or None (no framework stage)."""
        trainer = self.trainer()
        if trainer is None:
            return None
        try:
            stage = trainer.state.stage
        except AttributeError:
            return None
        if stage is None:
            return None
        return str(getattr(stage, "value", stage))

    def is_training(self) -> bool:
        """True unless a framework says this call belongs to another stage than training."""
        stage = self.current()
        return stage is None or stage == TRAINING

    def count(self, stage: str | None, what: str) -> None:
        if stage is None:
            return
        rec = self.counts.setdefault(stage, {})
        if rec.get(what, 0) < MAX_CALLS_PER_STAGE:
            rec[what] = rec.get(what, 0) + 1

    def result(self) -> dict[str, Any] | None:
        if self.framework is None:
            return None
        return {"framework": self.framework, "counts": self.counts, "settings": self.settings}


def _settings(trainer: Any) -> dict[str, Any]:
    """What the trainer was asked to do to each step (JSON-ready; missing attributes are left out)."""
    out: dict[str, Any] = {}
    for attr in ("accumulate_grad_batches", "gradient_clip_val", "gradient_clip_algorithm", "max_steps", "max_epochs",
                 "num_sanity_val_steps", "val_check_interval", "precision"):
        try:
            value = getattr(trainer, attr, None)
        except Exception:  # noqa: BLE001 - a property that fails before the run is set up: leave it out
            continue
        if value is None or isinstance(value, (bool, int, float, str)):
            out[attr] = value
        else:
            out[attr] = str(value)
    try:
        module = trainer.lightning_module
        out["automatic_optimization"] = bool(module.automatic_optimization)
    except Exception:  # noqa: BLE001 - no module attached yet
        pass
    return out
