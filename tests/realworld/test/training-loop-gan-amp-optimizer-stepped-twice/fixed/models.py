"""Small waveform generator and multi-period discriminator for a voice-conversion recipe."""
import torch
import torch.nn.functional as F
from torch import nn

LRELU_SLOPE = 0.1


class Generator(nn.Module):
    def __init__(self, in_ch=32, upsample_rates=(4, 4), channels=64):
        super().__init__()
        self.pre = nn.Conv1d(in_ch, channels, 7, padding=3)
        ups = []
        ch = channels
        for r in upsample_rates:
            ups.append(nn.ConvTranspose1d(ch, ch // 2, r * 2, stride=r, padding=r // 2))
            ch //= 2
        self.ups = nn.ModuleList(ups)
        self.post = nn.Conv1d(ch, 1, 7, padding=3)

    def forward(self, feats):
        x = self.pre(feats)
        for up in self.ups:
            x = up(F.leaky_relu(x, LRELU_SLOPE))
        return torch.tanh(self.post(F.leaky_relu(x)))


class PeriodDiscriminator(nn.Module):
    def __init__(self, period):
        super().__init__()
        self.period = period
        self.convs = nn.ModuleList([
            nn.Conv2d(1, 16, (5, 1), (3, 1), padding=(2, 0)),
            nn.Conv2d(16, 32, (5, 1), (3, 1), padding=(2, 0)),
        ])
        self.post = nn.Conv2d(32, 1, (3, 1), padding=(1, 0))

    def forward(self, wav):
        b, c, t = wav.shape
        if t % self.period:
            pad = self.period - t % self.period
            wav = F.pad(wav, (0, pad), "reflect")
            t = t + pad
        x = wav.view(b, c, t // self.period, self.period)
        fmaps = []
        for conv in self.convs:
            x = F.leaky_relu(conv(x), LRELU_SLOPE)
            fmaps.append(x)
        return self.post(x).flatten(1), fmaps


class MultiPeriodDiscriminator(nn.Module):
    def __init__(self, periods=(2, 3, 5)):
        super().__init__()
        self.discriminators = nn.ModuleList([PeriodDiscriminator(p) for p in periods])

    def forward(self, real, fake):
        outs = [d(real) for d in self.discriminators], [d(fake) for d in self.discriminators]
        return outs


def discriminator_loss(real_outputs, fake_outputs):
    loss = 0.0
    for (dr, _), (dg, _) in zip(real_outputs, fake_outputs):
        loss = loss + torch.mean((1 - dr) ** 2) + torch.mean(dg ** 2)
    return loss


def generator_loss(fake_outputs):
    return sum(torch.mean((1 - dg) ** 2) for dg, _ in fake_outputs)


def feature_loss(real_outputs, fake_outputs):
    loss = 0.0
    for (_, fr), (_, fg) in zip(real_outputs, fake_outputs):
        for a, b in zip(fr, fg):
            loss = loss + torch.mean(torch.abs(a.detach() - b))
    return loss * 2
