from .misc import AverageMeter, count_parameters, format_count, human_time, move_to
from .seed import seed_everything, worker_init_fn

__all__ = ["AverageMeter", "count_parameters", "format_count", "human_time", "move_to", "seed_everything",
           "worker_init_fn"]
