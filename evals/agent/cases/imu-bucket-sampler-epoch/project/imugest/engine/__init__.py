from .trainer import Trainer, evaluate  # noqa: F401
