import math
import os

import torch
import torch.nn.functional as F


def warmup_cosine(optimizer, warmup_epochs, max_epochs):
    def factor(epoch):
        if epoch < warmup_epochs:
            return (epoch + 1) / (warmup_epochs + 1)
        progress = (epoch - warmup_epochs) / max(1, max_epochs - warmup_epochs)
        return 0.5 * (1 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


class Trainer:
    def __init__(self, model, train_loader, valid_loader, checkpoint_dir, max_epochs=12, lr=0.1):
        self.model = model
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.checkpoint_dir = checkpoint_dir
        self.max_epochs = max_epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.lr_scheduler = warmup_cosine(self.optimizer, warmup_epochs=2, max_epochs=max_epochs)
        self.starting_epoch = 0

    def save_model(self, epoch):
        torch.save({
            "epoch": epoch,
            "model_state_dict": self.model.state_dict(),
            "optimizer_state_dict": self.optimizer.state_dict(),
        }, os.path.join(self.checkpoint_dir, "recent.pt"))

    def load_checkpoint(self):
        ckpt = torch.load(os.path.join(self.checkpoint_dir, "recent.pt"))
        self.model.load_state_dict(ckpt["model_state_dict"])
        self.optimizer.load_state_dict(ckpt["optimizer_state_dict"])
        self.starting_epoch = ckpt["epoch"] + 1

    @torch.no_grad()
    def validation_loop(self):
        self.model.eval()
        total = sum(F.mse_loss(self.model(x), y, reduction="sum").item() for x, y in self.valid_loader)
        return total / len(self.valid_loader.dataset)

    def train(self, stop_after=None):
        last = self.max_epochs if stop_after is None else stop_after
        for epoch in range(self.starting_epoch, last):
            self.model.train()
            for x, y in self.train_loader:
                loss = F.mse_loss(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.lr_scheduler.step()
            val = self.validation_loop()
            lr = self.optimizer.param_groups[0]["lr"]
            print(f"epoch {epoch:2d} train {loss.item():.4f} valid {val:.4f} next_lr {lr:.4f}")
            self.save_model(epoch)
