import math


def temperature_at(step, start=1.0, end=1.0 / 16, anneal_steps=150_000):
    """Exponential decay of the Gumbel temperature from `start` to `end` over `anneal_steps`."""
    progress = min(step / anneal_steps, 1.0)
    return start * math.exp(progress * math.log(end / start))
