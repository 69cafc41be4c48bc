import os

import torch
import torch.distributed as dist


def save_checkpoint(state, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    torch.save(state, os.path.join(out_dir, name))


def train(args, model, optimizer, lr_sched, loader, criterion):
    step = 0
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for i, (frames, labels) in enumerate(loader):
            logits = model(frames.cuda(non_blocking=True))
            loss = criterion(logits, labels.cuda(non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            lr_sched.step()
            step += 1
            if (i + 1) % args.save_freq == 0:
                save_checkpoint({"step": step, "model": model.state_dict(),
                                 "optimizer": optimizer.state_dict(), "lr_sched": lr_sched.state_dict()},
                                args.out_dir, "checkpoint-latest.pth")
        if dist.get_rank() == 0:
            print(f"epoch {epoch} done, last loss {loss.item():.4f}")
