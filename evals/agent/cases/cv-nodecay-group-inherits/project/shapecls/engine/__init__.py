from .hooks import CheckpointHook, EvalHook, LoggerHook, LRSchedulerHook  # noqa: F401
from .trainer import Trainer, evaluate  # noqa: F401
