import math

import torch


def cosine_factor(total_epochs):
    return lambda epoch: 0.5 * (1 + math.cos(math.pi * min(epoch, total_epochs) / total_epochs))


def build_optim(model, cfg, resume_state=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["base_lr"], momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, cosine_factor(cfg["epochs"]))
    if resume_state is not None:
        optimizer.load_state_dict(resume_state["optimizer"])
        scheduler.load_state_dict(resume_state["scheduler"])
    return optimizer, scheduler
