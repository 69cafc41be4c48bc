from .hooks import Hook, KeepBest, LogHook, SchedulerHook
from .trainer import Trainer, evaluate

__all__ = ["Hook", "KeepBest", "LogHook", "SchedulerHook", "Trainer", "evaluate"]
