from .builders import build_optimizer, build_scheduler, param_groups

__all__ = ["build_optimizer", "build_scheduler", "param_groups"]
