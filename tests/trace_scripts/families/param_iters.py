"""Gradient clipping and parameter loops that may touch no parameter, in several shapes (argv[1]).

Buggy: 'helper-twice' (a d2l-style clipping helper loops over model.parameters() twice: the rescaling loop never
runs), 'stored-generator' (params = model.parameters() is consumed by the optimizer's constructor and later given to
clip_grad_norm_), 'filter-empty' (clip_grad_norm_ given a name filter that matches nothing), 'frozen-encoder' (clip
given the frozen encoder's parameters while the head trains), 'ema-generator' (an EMA update zips a generator of the
EMA copy's parameters stored once at set-up).
Clean: 'helper-list' (the same helper, which turns params into a list first), 'fresh' (clip_grad_norm_ given
model.parameters() at the call), 'subset' (torch.nn.utils.clip_grad_value_ given the trained head's parameters on purpose), 'before-backward'
(a clip called right after zero_grad, before any gradient of the step exists: nothing to clip), 'ema-fresh' (the
EMA update asks both models for their parameters each time).
"""
import sys

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

variant = sys.argv[1] if len(sys.argv) > 1 else "helper-twice"
torch.manual_seed(0)


def grad_clipping(params, theta):
    if variant == "helper-list":
        params = list(params)
    norm = torch.zeros(())
    for p in params:
        norm += (p.grad ** 2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for p in params:
            p.grad.mul_(theta / norm)


model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2))
encoder, head = model[0], model[2]
if variant == "frozen-encoder":
    encoder.requires_grad_(False)
ema = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2))
ema.load_state_dict(model.state_dict())
ema.requires_grad_(False)
ema_params = ema.parameters()

params = model.parameters()
optimizer = torch.optim.SGD(params if variant == "stored-generator" else [p for p in model.parameters() if p.requires_grad],
                            lr=0.5)
x = torch.randn(512, 8)
y = (x[:, 0] + x[:, 1] > 0).long()
for step in range(30):
    rows = slice((step * 32) % 512, (step * 32) % 512 + 32)
    optimizer.zero_grad()
    if variant == "before-backward":
        clip_grad_norm_(model.parameters(), 1.0)
    loss = nn.functional.cross_entropy(model(x[rows]), y[rows])
    loss.backward()
    if variant in ("helper-twice", "helper-list"):
        grad_clipping(model.parameters(), 0.1)
    elif variant == "stored-generator":
        clip_grad_norm_(params, 0.1)
    elif variant == "filter-empty":
        clip_grad_norm_([p for n, p in model.named_parameters() if "lstm" in n], 0.1)
    elif variant == "frozen-encoder":
        clip_grad_norm_(encoder.parameters(), 0.1)
    elif variant == "fresh":
        clip_grad_norm_(model.parameters(), 0.1)
    elif variant == "subset":
        torch.nn.utils.clip_grad_value_(head.parameters(), 0.1)
    optimizer.step()
    with torch.no_grad():
        if variant == "ema-generator":
            for e, p in zip(ema_params, model.parameters()):
                e.mul_(0.9).add_(p, alpha=0.1)
        elif variant == "ema-fresh":
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(0.9).add_(p, alpha=0.1)
