from .stochastic import GaussianSample

__all__ = ["GaussianSample"]
