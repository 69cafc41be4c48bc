import math

from torch.optim.lr_scheduler import _LRScheduler


class CosineWarmupRestarts(_LRScheduler):
    def __init__(self, optimizer, first_cycle_steps, max_lr=0.1, min_lr=1e-6, warmup_steps=0, gamma=1.0,
                 last_epoch=-1):
        self.first_cycle_steps = first_cycle_steps
        self.max_lr = max_lr
        self.min_lr = min_lr
        self.warmup_steps = warmup_steps
        self.gamma = gamma
        self.step_in_cycle = last_epoch
        super().__init__(optimizer, last_epoch)

    def _cycle_lr(self):
        if self.step_in_cycle < self.warmup_steps:
            return (self.max_lr - self.min_lr) * self.step_in_cycle / self.warmup_steps + self.min_lr
        progress = (self.step_in_cycle - self.warmup_steps) / (self.first_cycle_steps - self.warmup_steps)
        return self.min_lr + (self.max_lr - self.min_lr) * (1 + math.cos(math.pi * progress)) / 2

    def get_lr(self):
        return [self._cycle_lr() for _ in self.base_lrs]

    def step(self, epoch=None):
        self.step_in_cycle += 1
        if self.step_in_cycle >= self.first_cycle_steps:
            self.step_in_cycle = 0
            self.max_lr *= self.gamma
        self.last_epoch += 1
        lr = self._cycle_lr()
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]
