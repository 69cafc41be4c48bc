import time

import torch
from timm.utils import AverageMeter, accuracy


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, device,
                    lr_scheduler=None, model_ema=None, log_interval=50):
    model.train()
    batch_time = AverageMeter()
    losses = AverageMeter()
    num_updates = epoch * len(loader)
    end = time.time()
    for batch_idx, (images, targets) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)

        output = model(images)
        loss = loss_fn(output, targets)

        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        num_updates += 1

        losses.update(loss.item(), images.size(0))
        batch_time.update(time.time() - end)
        end = time.time()
        if lr_scheduler is not None:
            lr_scheduler.step_update(num_updates=num_updates, metric=losses.avg)
        if batch_idx % log_interval == 0:
            lr = optimizer.param_groups[0]["lr"]
            print(f"Train: {epoch} [{batch_idx:>4d}/{len(loader)}] "
                  f"loss {losses.val:.4f} ({losses.avg:.4f}) lr {lr:.3e} "
                  f"time {batch_time.avg:.3f}s")

    if model_ema is not None:
        model_ema.update(model)

    return {"loss": losses.avg}


@torch.no_grad()
def validate(model, loader, loss_fn, device):
    model.eval()
    losses = AverageMeter()
    top1 = AverageMeter()
    for images, targets in loader:
        images = images.to(device)
        targets = targets.to(device)
        output = model(images)
        loss = loss_fn(output, targets)
        acc1, = accuracy(output, targets, topk=(1,))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
    return {"loss": losses.avg, "top1": top1.avg}
