import torch
from torch.utils.data import DataLoader

from config import TrainerConfig
from splits import make_training_splits


class ModelTrainer:
    def __init__(self, cfg: TrainerConfig, labels, model):
        self.cfg = cfg
        self.model = model
        self.train_frames, self.val_frames = make_training_splits(labels, cfg.val_fraction, seed=cfg.seed)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.start_epoch = 0
        if cfg.resume_ckpt_path:
            ckpt = torch.load(cfg.resume_ckpt_path, map_location="cpu")
            self.model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.start_epoch = ckpt["epoch"] + 1

    def train(self):
        train_dl = DataLoader(self.train_frames, batch_size=self.cfg.batch_size, shuffle=True)
        val_dl = DataLoader(self.val_frames, batch_size=self.cfg.batch_size)
        for epoch in range(self.start_epoch, self.cfg.max_epochs):
            self.model.train()
            for img, confmap in train_dl:
                loss = torch.nn.functional.mse_loss(self.model(img), confmap)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.validate(val_dl, epoch)
            torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                        "epoch": epoch}, "ckpt/last.pt")

    @torch.no_grad()
    def validate(self, val_dl, epoch):
        self.model.eval()
        losses = [torch.nn.functional.mse_loss(self.model(i), c).item() for i, c in val_dl]
        print(f"epoch {epoch} val_loss {sum(losses) / len(losses):.5f}")
