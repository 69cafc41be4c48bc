import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler=None, log_every=25):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.log_every = log_every
        self.step = 0

    def compute_loss(self, batch):
        x, y = batch
        pred = self.model(x)
        return F.mse_loss(pred, y)

    def train_step(self, batch):
        self.model.train()
        loss = self.compute_loss(batch)
        loss.backward()
        self.optimizer.step()
        if self.lr_scheduler is not None:
            self.lr_scheduler.step()
        self.model.zero_grad(set_to_none=True)
        self.step += 1
        return loss.item()

    def fit(self, batches):
        history = []
        for batch in batches:
            loss = self.train_step(batch)
            history.append(loss)
            if self.step % self.log_every == 0:
                print(f"step {self.step:4d}  loss {sum(history[-self.log_every:]) / self.log_every:.4f}")
        return history
