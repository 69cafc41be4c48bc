from .callbacks import ClampLogitScale, ConsoleLogger, SaveBest, WarmupCosine  # noqa: F401
from .trainer import Trainer  # noqa: F401
