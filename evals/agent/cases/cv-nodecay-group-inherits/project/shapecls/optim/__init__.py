from .factory import build_optimizer, build_scheduler  # noqa: F401
from .param_groups import param_groups_weight_decay  # noqa: F401
