import torch


def warmup_poly_schedule(optimizer, warmup_steps, total_steps, power=0.9):
    def factor(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        return (1 - (step - warmup_steps) / max(1, total_steps - warmup_steps)) ** power

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
