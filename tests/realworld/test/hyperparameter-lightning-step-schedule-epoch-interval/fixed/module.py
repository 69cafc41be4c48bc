import math

import lightning.pytorch as pl
import torch
from torch.optim.lr_scheduler import LambdaLR


def warmup_cosine(warmup_steps, max_steps):
    def fn(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, max_steps - warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return fn


class WorldModelModule(pl.LightningModule):
    def __init__(self, model, cfg):
        super().__init__()
        self.model = model
        self.cfg = cfg

    def training_step(self, batch, batch_idx):
        loss = self.model.loss(batch)
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.cfg.lr, weight_decay=self.cfg.weight_decay)
        total_steps = self.trainer.estimated_stepping_batches
        sched = LambdaLR(opt, warmup_cosine(max(1, int(0.01 * total_steps)), total_steps))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
