import lightning.pytorch as pl
import torch
import torch.nn.functional as F


class ContrastiveModule(pl.LightningModule):
    def __init__(self, encoder, lr=0.3, accumulate=8, temperature=0.1):
        super().__init__()
        self.encoder = encoder
        self.automatic_optimization = False
        self.save_hyperparameters(ignore=["encoder"])

    def info_nce(self, z1, z2):
        z1, z2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
        logits = z1 @ z2.t() / self.hparams.temperature
        return F.cross_entropy(logits, torch.arange(len(z1), device=z1.device))

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        view1, view2 = batch
        loss = self.info_nce(self.encoder(view1), self.encoder(view2))
        self.manual_backward(loss)
        if (batch_idx + 1) % self.hparams.accumulate == 0:
            opt.step()
            opt.zero_grad()
        self.log("train/info_nce", loss, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.SGD(self.encoder.parameters(), lr=self.hparams.lr, momentum=0.9, weight_decay=1e-6)
