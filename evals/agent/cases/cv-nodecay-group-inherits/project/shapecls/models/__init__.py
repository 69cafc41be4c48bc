from . import resnet  # noqa: F401  (registers the architectures)
from ..registry import MODELS, create


def build_model(cfg):
    params = {k: v for k, v in cfg.items() if k != "arch"}
    return create(MODELS, cfg.arch, **params)
