from .callbacks import BestCheckpoint, EarlyStopping, EpochDecay, History
from .trainer import Trainer, evaluate

__all__ = ["BestCheckpoint", "EarlyStopping", "EpochDecay", "History", "Trainer", "evaluate"]
