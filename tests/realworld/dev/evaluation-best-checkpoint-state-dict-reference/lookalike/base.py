import os
import tempfile
import torch


class BaseTrainer:
    def __init__(self, model, optimizer, patience=50):
        self.model = model
        self.optimizer = optimizer
        self.patience = patience
        self.best_loss = float("inf")
        self.best_epoch = -1
        self.ckpt_path = os.path.join(tempfile.mkdtemp(), "best.pt")

    def train_epoch(self, x, y):
        raise NotImplementedError

    def validate(self, x, y):
        raise NotImplementedError

    def fit(self, train, val, epochs):
        for epoch in range(epochs):
            tr = self.train_epoch(*train)
            vl = self.validate(*val)
            if epoch % 25 == 0:
                print(f"epoch {epoch:3d} train {tr:.4f} val {vl:.4f}")
            if vl < self.best_loss:
                self.best_loss = vl
                self.best_epoch = epoch
                torch.save(self.model.state_dict(), self.ckpt_path)
            elif epoch - self.best_epoch > self.patience:
                break
        self.model.load_state_dict(torch.load(self.ckpt_path))
        print(f"restored epoch {self.best_epoch} (val {self.best_loss:.4f})")
