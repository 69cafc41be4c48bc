"""LightningModule wrapping a two-layer MLP classifier."""
import lightning as L
import torch
from torch import nn


def load_optimizer(hparams, model):
    name = hparams["optimizer"].lower()
    if name == "adam":
        return torch.optim.Adam(model.parameters(), lr=hparams["lr"])
    if name == "sgd":
        return torch.optim.SGD(model.parameters(), lr=hparams["lr"], momentum=0.9)
    raise ValueError(f"optimizer {name} not supported")


def load_loss(hparams):
    if hparams["loss"] == "cross_entropy":
        return nn.CrossEntropyLoss()
    raise ValueError(f"loss {hparams['loss']} not supported")


class MyModel(L.LightningModule):
    def __init__(self, input_dim, hparams):
        super().__init__()
        self.save_hyperparameters(hparams)
        self.loss_fn = load_loss(hparams)
        self.net = nn.Sequential(
            nn.Linear(input_dim, hparams["hidden_dim"]), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(hparams["hidden_dim"], hparams["num_classes"]),
        )

    def forward(self, x):
        return self.net(x)

    def _generic_step(self, batch):
        x, y = batch
        logits = self(x)
        loss = self.loss_fn(logits, y)
        acc = (logits.argmax(dim=1) == y).float().mean()
        return loss, acc

    def training_step(self, batch, batch_idx):
        loss, acc = self._generic_step(batch)
        self.log("train_loss", loss)
        self.log("train_acc", acc)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, acc = self._generic_step(batch)
        self.log("val_loss", loss, prog_bar=True)
        self.log("val_acc", acc)

    def test_step(self, batch, batch_idx):
        loss, acc = self._generic_step(batch)
        self.log("test_loss", loss)
        self.log("test_acc", acc)

    def configure_optimizers(self):
        return load_optimizer(self.hparams, self)
