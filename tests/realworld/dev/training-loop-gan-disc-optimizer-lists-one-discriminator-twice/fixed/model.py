import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import weight_norm


class Generator(nn.Module):
    """Mel frames [B, n_mels, T] -> waveform [B, 1, T * hop]."""

    def __init__(self, n_mels, channels, hop):
        super().__init__()
        self.pre = weight_norm(nn.Conv1d(n_mels, channels, 7, padding=3))
        ups, c = [], channels
        for r in (8, 8, 4):
            ups += [nn.LeakyReLU(0.1), weight_norm(nn.ConvTranspose1d(c, c // 2, 2 * r, stride=r, padding=r // 2))]
            c //= 2
        self.ups = nn.Sequential(*ups)
        self.post = nn.Sequential(nn.LeakyReLU(0.1), weight_norm(nn.Conv1d(c, 1, 7, padding=3)), nn.Tanh())

    def forward(self, mel):
        return self.post(self.ups(self.pre(mel)))


class PeriodDiscriminator(nn.Module):
    def __init__(self, period):
        super().__init__()
        self.period = period
        chans = [1, 32, 128, 512]
        self.convs = nn.ModuleList([weight_norm(nn.Conv2d(chans[i], chans[i + 1], (5, 1), (3, 1), padding=(2, 0)))
                                    for i in range(len(chans) - 1)])
        self.out = weight_norm(nn.Conv2d(chans[-1], 1, (3, 1), padding=(1, 0)))

    def forward(self, x):
        b, c, t = x.shape
        if t % self.period:
            x = F.pad(x, (0, self.period - t % self.period), mode="reflect")
        x = x.view(b, c, -1, self.period)
        feats = []
        for conv in self.convs:
            x = F.leaky_relu(conv(x), 0.1)
            feats.append(x)
        return self.out(x).flatten(1), feats


class MultiPeriodDiscriminator(nn.Module):
    def __init__(self, periods):
        super().__init__()
        self.discs = nn.ModuleList([PeriodDiscriminator(p) for p in periods])

    def forward(self, x):
        return [d(x) for d in self.discs]


class ResolutionDiscriminator(nn.Module):
    def __init__(self, n_fft, hop, win):
        super().__init__()
        self.n_fft, self.hop, self.win = n_fft, hop, win
        self.convs = nn.ModuleList([weight_norm(nn.Conv2d(1, 32, (3, 9), padding=(1, 4))),
                                    weight_norm(nn.Conv2d(32, 32, (3, 9), stride=(1, 2), padding=(1, 4))),
                                    weight_norm(nn.Conv2d(32, 32, (3, 3), padding=(1, 1)))])
        self.out = weight_norm(nn.Conv2d(32, 1, (3, 3), padding=(1, 1)))

    def forward(self, x):
        window = torch.hann_window(self.win, device=x.device)
        spec = torch.stft(x.squeeze(1), self.n_fft, self.hop, self.win, window=window, return_complex=True)
        x = spec.abs().unsqueeze(1)
        feats = []
        for conv in self.convs:
            x = F.leaky_relu(conv(x), 0.1)
            feats.append(x)
        return self.out(x).flatten(1), feats


class MultiResolutionDiscriminator(nn.Module):
    def __init__(self, resolutions):
        super().__init__()
        self.discs = nn.ModuleList([ResolutionDiscriminator(*r) for r in resolutions])

    def forward(self, x):
        return [d(x) for d in self.discs]
