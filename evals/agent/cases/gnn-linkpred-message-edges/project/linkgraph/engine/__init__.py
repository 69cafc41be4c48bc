from .callbacks import BestCheckpoint, EarlyStopping, HistoryLogger  # noqa: F401
from .trainer import Trainer  # noqa: F401
