"""A window classifier whose LSTM keeps the default sequence-first layout (batch_first=False).

argv: 'view' (the (B, T, F) windows reshaped to (T, B, F) with a view: each sequence the LSTM reads interleaves
time steps of several samples, the bug), 'permute' (the axes swapped with permute: correct), 'batchfirst' (an
LSTM built batch_first=True and views that only merge trailing axes: correct).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "view"
B, T, F = 16, 10, 4


class WindowNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(F, 24, batch_first=(mode == "batchfirst"))
        self.head = nn.Linear(24, 2)

    def forward(self, windows):
        n, steps, feats = windows.shape
        if mode == "view":
            seq = windows.view(steps, n, feats)
        elif mode == "permute":
            seq = windows.permute(1, 0, 2)
        else:
            seq = windows.reshape(n, steps * feats).view(n, steps, feats)
        _, (h, _) = self.lstm(seq)
        return self.head(h[-1])


torch.manual_seed(0)
net = WindowNet()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for _ in range(40):
    x = torch.randn(B, T, F)
    y = (x[:, -1, 0] > x[:, 0, 0]).long()
    loss = nn.functional.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
