import time

import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, get_batch, cfg):
        self.model = model
        self.optimizer = optimizer
        self.get_batch = get_batch
        self.cfg = cfg

    def train_step(self):
        self.optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for micro_step in range(self.cfg["gradient_accumulation_steps"]):
            X, Y = self.get_batch("train")
            logits = self.model(X)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), Y.view(-1))
            total += loss.item()
            loss = loss / self.cfg["gradient_accumulation_steps"]
            loss.backward()
        if self.cfg["grad_clip"] != 0.0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["grad_clip"])
        self.optimizer.step()
        return total / self.cfg["gradient_accumulation_steps"]

    def fit(self):
        t0 = time.time()
        for it in range(self.cfg["max_iters"]):
            lossf = self.train_step()
            if it % self.cfg["log_interval"] == 0:
                print(f"iter {it}: loss {lossf:.4f}, time {(time.time() - t0) * 1000:.0f}ms")
                t0 = time.time()
