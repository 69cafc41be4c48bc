import math

import torch
import torch.distributed as dist


class LMTrainer:
    def __init__(self, model, optimizer, train_iter, valid_iter, args):
        self.model, self.optimizer = model, optimizer
        self.train_iter, self.valid_iter, self.args = train_iter, valid_iter, args
        self.best_val_loss = math.inf
        self.rank = dist.get_rank()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        total_loss, total_len = 0.0, 0
        for data, target in self.valid_iter:
            loss = self.model(data, target).mean()
            total_loss += loss.item() * target.numel()
            total_len += target.numel()
        self.model.train()
        return total_loss / total_len

    def train_step(self, data, target):
        loss = self.model(data, target).mean()
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
        self.optimizer.step()
        return loss.item()

    def fit(self):
        step = 0
        for epoch in range(self.args.epochs):
            for data, target in self.train_iter:
                self.train_step(data, target)
                step += 1
                if step % self.args.eval_interval == 0:
                    val_loss = self.evaluate()
                    if self.rank == 0:
                        print(f"step {step} | valid loss {val_loss:.3f} | ppl {math.exp(val_loss):.2f}")
                        if val_loss < self.best_val_loss:
                            self.best_val_loss = val_loss
                            torch.save(self.model.module.state_dict(), self.args.save_path)
