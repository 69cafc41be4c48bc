import torch.nn as nn


class DepthwiseSeparableBlock(nn.Module):
    def __init__(self, c_in, c_out, pool):
        super().__init__()
        self.dw = nn.Conv2d(c_in, c_in, 5, padding=2, groups=c_in)
        self.pw = nn.Conv2d(c_in, c_out, 1)
        self.bn = nn.BatchNorm2d(c_out)
        self.act = nn.ReLU()
        self.pool = nn.MaxPool2d((1, pool))
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(self.pool(self.act(self.bn(self.pw(self.dw(x))))))


class DNDSED(nn.Module):
    """Depthwise-separable CNN + GRU sound event detector; returns per-frame logits."""

    def __init__(self, n_mels=40, n_classes=6, channels=(64, 128, 256), pools=(5, 4, 2), rnn_hidden=64):
        super().__init__()
        blocks, c = [], 1
        for c_out, p in zip(channels, pools):
            blocks.append(DepthwiseSeparableBlock(c, c_out, p))
            c = c_out
        self.cnn = nn.Sequential(*blocks)
        freq_left = n_mels
        for p in pools:
            freq_left //= p
        self.rnn = nn.GRU(c * freq_left, rnn_hidden, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(2 * rnn_hidden, n_classes)

    def forward(self, x):
        h = self.cnn(x.unsqueeze(1))
        b, c, t, f = h.shape
        h = h.permute(0, 2, 1, 3).reshape(b, t, c * f)
        h, _ = self.rnn(h)
        return self.classifier(h)
