"""Bug: a hand-written cross-entropy takes log() of softmax probabilities; a saturated row gives log(0) = -inf and a NaN loss."""
import torch
from torch import nn

import lightning as L
from toy_data import loaders, trainer


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        probs = torch.softmax(self(x) * 200.0, dim=-1)
        loss = -(torch.log(probs)[torch.arange(len(y)), y]).mean()
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    L.seed_everything(0)
    train, _ = loaders()
    trainer(val_check_interval=None).fit(Classifier(), train)
