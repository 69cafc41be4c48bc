import torch
import torch.nn as nn
from base import BaseTrainer


class Imputer(BaseTrainer):
    def train_epoch(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def validate(self, x, y):
        self.model.eval()
        return nn.functional.mse_loss(self.model(x), y).item()


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(60, 10)
    y = x[:, :1] * 2 + 0.8 * torch.randn(60, 1)
    xv = torch.randn(500, 10)
    yv = xv[:, :1] * 2 + 0.8 * torch.randn(500, 1)
    net = nn.Sequential(nn.Linear(10, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
    trainer = Imputer(net, torch.optim.Adam(net.parameters(), lr=3e-3), patience=400)
    trainer.fit((x, y), (xv, yv), epochs=300)
    print(f"val loss of the restored model {trainer.validate(xv, yv):.4f}")
