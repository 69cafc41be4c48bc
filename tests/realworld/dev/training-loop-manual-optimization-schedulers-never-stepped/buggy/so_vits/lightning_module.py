import lightning.pytorch as pl
import torch

from .losses import discriminator_loss, feature_loss, generator_loss, kl_loss
from .models import MultiPeriodDiscriminator, SynthesizerTrn


class VitsLightning(pl.LightningModule):
    def __init__(self, hps):
        super().__init__()
        self.save_hyperparameters(hps)
        self.automatic_optimization = False
        self.net_g = SynthesizerTrn(**hps.model)
        self.net_d = MultiPeriodDiscriminator(hps.model.use_spectral_norm)

    def configure_optimizers(self):
        hp = self.hparams.train
        optim_g = torch.optim.AdamW(self.net_g.parameters(), hp.learning_rate, betas=hp.betas, eps=hp.eps)
        optim_d = torch.optim.AdamW(self.net_d.parameters(), hp.learning_rate, betas=hp.betas, eps=hp.eps)
        scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=hp.lr_decay)
        scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=hp.lr_decay)
        return [optim_g, optim_d], [scheduler_g, scheduler_d]

    def training_step(self, batch, batch_idx):
        optim_g, optim_d = self.optimizers()
        c, f0, spec, y, g, lengths, uv = batch
        y_hat, ids_slice, z_mask, (z, z_p, m_p, logs_p, m_q, logs_q), pred_lf0, norm_lf0, lf0 = self.net_g(
            c, f0, uv, spec, g=g, c_lengths=lengths, spec_lengths=lengths)
        y = self.net_g.slice_segments(y, ids_slice)

        y_d_hat_r, y_d_hat_g, _, _ = self.net_d(y, y_hat.detach())
        loss_disc, _, _ = discriminator_loss(y_d_hat_r, y_d_hat_g)
        optim_d.zero_grad()
        self.manual_backward(loss_disc)
        optim_d.step()

        y_d_hat_r, y_d_hat_g, fmap_r, fmap_g = self.net_d(y, y_hat)
        loss_mel = torch.nn.functional.l1_loss(self.net_g.mel(y), self.net_g.mel(y_hat)) * self.hparams.train.c_mel
        loss_kl = kl_loss(z_p, logs_q, m_p, logs_p, z_mask) * self.hparams.train.c_kl
        loss_gen, _ = generator_loss(y_d_hat_g)
        loss_gen_all = loss_gen + feature_loss(fmap_r, fmap_g) + loss_mel + loss_kl
        optim_g.zero_grad()
        self.manual_backward(loss_gen_all)
        optim_g.step()

        self.log_dict({"loss/g/total": loss_gen_all, "loss/d/total": loss_disc, "lr": optim_g.param_groups[0]["lr"]},
                      prog_bar=True)
