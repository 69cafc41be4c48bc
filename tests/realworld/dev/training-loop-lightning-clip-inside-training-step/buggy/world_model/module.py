import lightning.pytorch as pl
import torch
import torch.nn.functional as F

from world_model.networks import LatentDynamics


class WorldModelModule(pl.LightningModule):
    def __init__(self, latent_dim=256, action_dim=8, lr=3e-4, weight_decay=0.01, gradient_clip_norm=1.0):
        super().__init__()
        self.save_hyperparameters()
        self.dynamics = LatentDynamics(latent_dim, action_dim)

    def training_step(self, batch, batch_idx):
        z, actions, z_next = batch["latents"], batch["actions"], batch["next_latents"]
        pred = self.dynamics(z, actions)
        loss = F.mse_loss(pred, z_next)
        grad_norm = torch.nn.utils.clip_grad_norm_(self.parameters(), self.hparams.gradient_clip_norm)
        self.log("train/loss", loss, prog_bar=True)
        self.log("train/gradient_norm", grad_norm)
        return loss

    def validation_step(self, batch, batch_idx):
        pred = self.dynamics(batch["latents"], batch["actions"])
        self.log("val/loss", F.mse_loss(pred, batch["next_latents"]), prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_steps)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
