import pytorch_lightning as pl
import torch
import torch.nn.functional as F
import torchaudio

from model import Generator, MultiPeriodDiscriminator, MultiResolutionDiscriminator


def adversarial_d_loss(real_outs, fake_outs):
    loss = 0.0
    for (r, _), (f, _) in zip(real_outs, fake_outs):
        loss = loss + torch.mean((1 - r) ** 2) + torch.mean(f ** 2)
    return loss


def adversarial_g_loss(fake_outs):
    return sum(torch.mean((1 - f) ** 2) for f, _ in fake_outs)


def feature_matching_loss(real_outs, fake_outs):
    loss = 0.0
    for (_, rf), (_, ff) in zip(real_outs, fake_outs):
        for r, f in zip(rf, ff):
            loss = loss + F.l1_loss(f, r.detach())
    return loss


class LitVocoderGAN(pl.LightningModule):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.automatic_optimization = False
        self.generator = Generator(cfg.n_mels, cfg.gen_channels, cfg.hop)
        self.disc_mpd = MultiPeriodDiscriminator(cfg.periods)
        self.disc_mrd = MultiResolutionDiscriminator(cfg.resolutions)
        self.mel = torchaudio.transforms.MelSpectrogram(cfg.sample_rate, n_fft=1024, hop_length=cfg.hop,
                                                        n_mels=cfg.n_mels)

    def _log_mel(self, wav):
        return torch.log(self.mel(wav.squeeze(1)).clamp_min(1e-5))

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        wav = batch
        mel = self._log_mel(wav)[..., : wav.shape[-1] // self.cfg.hop]
        fake = self.generator(mel)[..., : wav.shape[-1]]

        d_loss = 0.0
        for disc in (self.disc_mpd, self.disc_mrd):
            d_loss = d_loss + adversarial_d_loss(disc(wav), disc(fake.detach()))
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()

        g_adv, g_fm = 0.0, 0.0
        for disc in (self.disc_mpd, self.disc_mrd):
            real_outs, fake_outs = disc(wav), disc(fake)
            g_adv = g_adv + adversarial_g_loss(fake_outs)
            g_fm = g_fm + feature_matching_loss(real_outs, fake_outs)
        g_mel = F.l1_loss(self._log_mel(fake), self._log_mel(wav))
        g_loss = g_adv + self.cfg.lambda_fm * g_fm + self.cfg.lambda_mel * g_mel
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()

        self.log_dict({"d_loss": d_loss, "g_adv": g_adv, "g_mel": g_mel}, prog_bar=True)

    def configure_optimizers(self):
        params_gen = self.generator.parameters()
        params_disc = list(self.disc_mrd.parameters()) + list(
            self.disc_mpd.parameters()
        )
        opt_g = torch.optim.AdamW(params_gen, lr=self.cfg.lr_gen, betas=self.cfg.betas)
        opt_d = torch.optim.AdamW(params_disc, lr=self.cfg.lr_disc, betas=self.cfg.betas)
        return [opt_g, opt_d]
