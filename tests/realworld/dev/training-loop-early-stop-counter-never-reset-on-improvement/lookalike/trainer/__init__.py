from .basetrainer import BaseTrainer

__all__ = ["BaseTrainer"]
