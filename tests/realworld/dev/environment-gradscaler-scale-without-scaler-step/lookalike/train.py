import torch


def scaled_step(model, loss, optimizer, loss_scale=1024.0):
    optimizer.zero_grad()
    (loss * loss_scale).backward()
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(loss_scale)
    optimizer.step()
