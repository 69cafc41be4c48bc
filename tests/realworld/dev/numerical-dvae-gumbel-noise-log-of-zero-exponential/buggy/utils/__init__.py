from .gumbel import gumbel_softmax
from .schedules import temperature_at

__all__ = ["gumbel_softmax", "temperature_at"]
