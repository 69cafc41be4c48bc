import lightning.pytorch as pl
import torch

from .losses import duration_loss, mel_loss
from .models import FastSpeechLike


class AcousticLightning(pl.LightningModule):
    def __init__(self, hps):
        super().__init__()
        self.save_hyperparameters(hps)
        self.net = FastSpeechLike(**hps.model)

    def configure_optimizers(self):
        hp = self.hparams.train
        optim = torch.optim.AdamW(self.net.parameters(), hp.learning_rate, betas=hp.betas, eps=hp.eps)
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optim, gamma=hp.lr_decay)
        return [optim], [scheduler]

    def training_step(self, batch, batch_idx):
        phones, durations, mels, lengths = batch
        mel_hat, log_dur_hat = self.net(phones, lengths, durations)
        loss = mel_loss(mel_hat, mels, lengths) + duration_loss(log_dur_hat, durations, lengths)
        self.log("loss/total", loss, prog_bar=True)
        return loss
