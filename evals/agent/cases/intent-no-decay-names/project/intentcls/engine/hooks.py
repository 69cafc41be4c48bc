"""Trainer hooks. Each hook may implement after_step(trainer) and after_epoch(trainer, metrics)."""
import copy
import logging

log = logging.getLogger("intentcls")


class Hook:
    def after_step(self, trainer) -> None:
        pass

    def after_epoch(self, trainer, metrics: dict) -> None:
        pass


class SchedulerHook(Hook):
    """Steps a per-iteration LR schedule after every optimizer step."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def after_step(self, trainer):
        self.scheduler.step()


class LogHook(Hook):
    def __init__(self, every: int):
        self.every = every

    def after_step(self, trainer):
        if self.every and trainer.step % self.every == 0:
            lr = trainer.optimizer.param_groups[0]["lr"]
            log.info("step %5d  loss %.4f  lr %.2e", trainer.step, trainer.last_loss, lr)

    def after_epoch(self, trainer, metrics):
        log.info("epoch %d  " + "  ".join(f"{k} {v:.4f}" for k, v in metrics.items()), trainer.epoch)


class KeepBest(Hook):
    """Keeps a copy of the weights with the best validation score."""

    def __init__(self, monitor: str = "val_macro_f1"):
        self.monitor = monitor
        self.best = float("-inf")
        self.best_epoch = 0
        self.state = None

    def after_epoch(self, trainer, metrics):
        if metrics[self.monitor] > self.best:
            self.best = metrics[self.monitor]
            self.best_epoch = trainer.epoch
            self.state = copy.deepcopy(trainer.model.state_dict())
