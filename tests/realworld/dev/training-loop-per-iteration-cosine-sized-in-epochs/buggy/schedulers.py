import math

from torch.optim.lr_scheduler import LambdaLR


def cosine_with_warmup(optimizer, warmup_steps, max_steps):
    def lr_lambda(step):
        if step < warmup_steps:
            return (step + 1) / max(1, warmup_steps)
        progress = (step - warmup_steps) / max(1, max_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * 2.0 * 0.5 * progress))
    return LambdaLR(optimizer, lr_lambda)


def get_scheduler(name, optimizer, max_steps, warmup_fraction):
    if name == "cosine_warmup":
        return cosine_with_warmup(optimizer, int(warmup_fraction * max_steps), max_steps)
    raise ValueError(name)
