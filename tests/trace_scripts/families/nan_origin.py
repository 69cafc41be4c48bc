"""Training runs whose loss turns NaN at the first step, the NaN born in different places (argv[1]).

'moment-variance': a normaliser submodule, called through its own method from the model's forward, takes the
variance as E[x^2] - E[x]^2 of inputs near 1000 in float32; the difference cancels to rounding noise, partly
negative, and sqrt makes NaN (the module 'norm', op sqrt). 'log-in-loss': the model is finite; a hand-written loss
takes log of a probability that is exactly 0 (the loss computation). 'masked-rows': attention with a -inf padding
mask whose last query row is fully masked: the mask's -inf is deliberate, softmax over an all -inf row is the NaN
(module 'attn', op softmax).
"""
import sys

import torch
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "moment-variance"
torch.manual_seed(0)


class MomentNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def normalize(self, x):
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean
        return (x - mean) / torch.sqrt(var) * self.scale


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = MomentNorm()
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        return self.head(self.norm.normalize(x))


class MaskedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x, pad):
        scores = self.q(x) @ self.k(x).transpose(1, 2)
        scores = scores.masked_fill(pad[:, None, :] | pad[:, :, None], float("-inf"))
        return torch.softmax(scores, -1) @ x


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = MaskedAttention()
        self.out = nn.Linear(8, 3)

    def forward(self, x, pad):
        return self.out(self.attn(x, pad))


if variant == "moment-variance":
    model = Forecaster()
    x = 1013.0 + 0.01 * torch.randn(32, 16)
    y = torch.randn(32, 1)
elif variant == "log-in-loss":
    model = nn.Sequential(nn.Linear(4, 3))
    x, y = torch.randn(32, 4), torch.randint(0, 3, (32,))
else:
    model = Tagger()
    x, y = torch.randn(4, 6, 8), torch.randint(0, 3, (4, 6))
    pad = torch.zeros(4, 6, dtype=torch.bool)
    pad[:, -1] = True
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(5):
    opt.zero_grad()
    if variant == "moment-variance":
        loss = ((model(x) - y) ** 2).mean()
    elif variant == "log-in-loss":
        probs = torch.softmax(model(x), -1) * (torch.arange(3) != 2)  # class 2's probability zeroed
        loss = -torch.log(probs[torch.arange(32), y]).mean()
    else:
        loss = nn.functional.cross_entropy(model(x, pad).reshape(-1, 3), y.reshape(-1))
    loss.backward()
    opt.step()
