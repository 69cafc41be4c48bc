from .callbacks import build_callbacks, Callback, CallbackList
from .checkpoint import CheckpointManager
from .evaluator import Evaluator
from .trainer import Trainer

__all__ = ["build_callbacks", "Callback", "CallbackList", "CheckpointManager", "Evaluator", "Trainer"]
