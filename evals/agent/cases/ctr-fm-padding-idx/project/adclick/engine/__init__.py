from .callbacks import Callback, ProgressLogger, SaveBest
from .trainer import Trainer, evaluate, predict

__all__ = ["Callback", "ProgressLogger", "SaveBest", "Trainer", "evaluate", "predict"]
