"""A classifier with dropout and batch-norm, trained with a validation pass every few steps.

argv: 'left-in-eval' (validate() calls model.eval() and nothing switches back: the steps after it train in eval
mode, the bug), 'pretrained-eval' (the model is loaded in eval mode, as from_pretrained returns it, and never
switched: the bug from the first step), 'restored' (model.train() after each validation: correct),
'linear-probe' (the whole model in eval mode on purpose, only the head, which has neither dropout nor batch-norm,
is trained: correct), 'val-loss-with-grad' (a validation loss in eval mode with gradients on but never
backpropagated, then train() again: correct), 'data-parallel' (the 'left-in-eval' bug inside nn.DataParallel).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "left-in-eval"
torch.manual_seed(0)
x = torch.randn(256, 8)
y = (x[:, 0] > 0).long()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(16, 2)

    def forward(self, inputs):
        return self.head(self.body(inputs))


net = Net()
model = nn.DataParallel(net) if mode == "data-parallel" else net
if mode in ("pretrained-eval", "linear-probe"):
    model.eval()
if mode == "linear-probe":
    net.body.requires_grad_(False)
params = net.head.parameters() if mode == "linear-probe" else model.parameters()
optimizer = torch.optim.SGD(params, lr=0.1)


def validate():
    model.eval()
    if mode == "val-loss-with-grad":
        return nn.functional.cross_entropy(model(x[:32]), y[:32])
    with torch.no_grad():
        return nn.functional.cross_entropy(model(x[:32]), y[:32])


for step in range(40):
    i = (step * 16) % 224 + 32
    loss = nn.functional.cross_entropy(model(x[i:i + 16]), y[i:i + 16])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 3 == 2 and mode != "linear-probe":
        validate()
        if mode in ("restored", "val-loss-with-grad"):
            model.train()
