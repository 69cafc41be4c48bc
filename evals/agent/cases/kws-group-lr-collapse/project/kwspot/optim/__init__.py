from .builders import build_optimizer, build_scheduler  # noqa: F401
