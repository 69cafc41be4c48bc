import os

import torch


def save_checkpoint(epoch, arch, model, optimizer=None, best_top1=None, is_best=False, dir="logs"):
    os.makedirs(dir, exist_ok=True)
    state = {"epoch": epoch, "arch": arch, "state_dict": model.state_dict(), "best_top1": best_top1}
    if optimizer is not None:
        state["optimizer"] = optimizer.state_dict()
    torch.save(state, os.path.join(dir, "checkpoint.pth.tar"))
    if is_best:
        torch.save(state, os.path.join(dir, "best.pth.tar"))


def load_checkpoint(model, chkpt_file, optimizer=None):
    checkpoint = torch.load(chkpt_file, map_location="cpu")
    model.load_state_dict(checkpoint["state_dict"])
    start_epoch = checkpoint.get("epoch", -1) + 1
    print(f"=> loaded checkpoint '{chkpt_file}' (epoch {start_epoch - 1})")
    return model, start_epoch
