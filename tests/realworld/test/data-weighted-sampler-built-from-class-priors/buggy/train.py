import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

from data import ClassifierDataset, make_metadata
from models import SqueezeCNN

CFG = {
    "data": {"batch_size": 32, "n_clips": 600, "call_fraction": 0.1, "balance_classes": True},
    "optim": {"lr": 1e-3, "epochs": 2},
}


def build_loader(cfg, metadata):
    dataset = ClassifierDataset(metadata)
    if cfg["balance_classes"]:
        return DataLoader(dataset, batch_size=cfg["batch_size"], sampler=dataset.sampler)
    return DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=True)


class Trainer:
    def __init__(self, model, loader, val_loader, cfg):
        self.model = model
        self.loader = loader
        self.val_loader = val_loader
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.epochs = cfg["epochs"]

    def train_epoch(self, epoch):
        self.model.train()
        for it, (audio, label) in enumerate(self.loader):
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(audio), label)
            loss.backward()
            self.optimizer.step()
            if it % 5 == 0:
                print(f"epoch {epoch} it {it:2d} loss {loss.item():.4f} "
                      f"calls in batch {int(label.sum())}/{len(label)}")

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        preds, labels = [], []
        for audio, label in self.val_loader:
            preds.append(self.model(audio).argmax(1))
            labels.append(label)
        preds, labels = torch.cat(preds), torch.cat(labels)
        recall = [(preds[labels == c] == c).float().mean().item() for c in (0, 1)]
        print(f"val balanced accuracy {np.mean(recall):.3f} (noise {recall[0]:.3f}, call {recall[1]:.3f})")

    def train(self):
        for epoch in range(self.epochs):
            self.train_epoch(epoch)
            self.evaluate()


def main():
    torch.manual_seed(0)
    train_meta = make_metadata(CFG["data"]["n_clips"], CFG["data"]["call_fraction"], seed=0)
    val_meta = make_metadata(200, CFG["data"]["call_fraction"], seed=1)
    train_loader = build_loader(CFG["data"], train_meta)
    val_loader = DataLoader(ClassifierDataset(val_meta, seed=7), batch_size=64)
    Trainer(SqueezeCNN(), train_loader, val_loader, CFG["optim"]).train()


if __name__ == "__main__":
    main()
