from __future__ import annotations

import os

import torch


def save_checkpoint(path: str, model, optimizer, scheduler, epoch: int, global_step: int, best_val: float) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        "global_step": global_step,
        "best_val": best_val,
        "rng": torch.get_rng_state(),
    }
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str, model, optimizer, scheduler) -> dict:
    state = torch.load(path, weights_only=False)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"])
    return {"epoch": state["epoch"], "global_step": state["global_step"], "best_val": state["best_val"]}
