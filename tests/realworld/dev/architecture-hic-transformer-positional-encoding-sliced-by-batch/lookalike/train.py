import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from model.corigami_models import ConvTransModel


class ChromosomeWindows(Dataset):
    def __init__(self, n=64, length=2048, n_tracks=2, bins=256, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.seq = torch.randn(n, length, 5 + n_tracks, generator=g)
        dist = (torch.arange(bins)[:, None] - torch.arange(bins)[None, :]).abs().float()
        self.mat = torch.exp(-dist / 20)[None].repeat(n, 1, 1) + 0.05 * torch.randn(n, bins, bins, generator=g)

    def __len__(self):
        return len(self.seq)

    def __getitem__(self, idx):
        return self.seq[idx], self.mat[idx]


class TrainModule(pl.LightningModule):
    def __init__(self, lr=2e-4):
        super().__init__()
        self.model = ConvTransModel()
        self.criterion = nn.MSELoss()
        self.lr = lr

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        seq, mat = batch
        loss = self.criterion(self(seq), mat)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        seq, mat = batch
        self.log("val_loss", self.criterion(self(seq), mat))

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=0)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=20)
        return {"optimizer": optimizer, "lr_scheduler": scheduler}


if __name__ == "__main__":
    pl.seed_everything(2077)
    module = TrainModule()
    train_loader = DataLoader(ChromosomeWindows(seed=0), batch_size=8, shuffle=True)
    val_loader = DataLoader(ChromosomeWindows(n=16, seed=1), batch_size=8)
    trainer = pl.Trainer(max_epochs=20, accelerator="auto", gradient_clip_val=1.0)
    trainer.fit(module, train_loader, val_loader)
