import lightning.pytorch as pl
import torch
import torch.nn.functional as F


class SignModel(pl.LightningModule):
    def __init__(self, encoder, head, lr=1e-3, steps_per_epoch=1000, epochs=30):
        super().__init__()
        self.encoder, self.head = encoder, head
        self.lr, self.steps_per_epoch, self.epochs = lr, steps_per_epoch, epochs

    def training_step(self, batch, batch_idx):
        frames, target = batch
        loss = F.cross_entropy(self.head(self.encoder(frames)), target)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=self.lr)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=self.lr, epochs=self.epochs, steps_per_epoch=self.steps_per_epoch)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
