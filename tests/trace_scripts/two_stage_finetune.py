"""Two-stage fine-tuning, done right: train the head with the backbone frozen,
then unfreeze and build a new optimizer (lower LR, stateful AdamW) for the
whole model. Each stage uses one optimizer for all of its steps."""
import torch
from torch import nn

torch.manual_seed(0)
N_IN, N_CLASSES, BATCH = 16, 4, 32
TEACHER = torch.randn(N_IN, N_CLASSES)


def make_batch():
    x = torch.randn(BATCH, N_IN)
    return x, (x @ TEACHER).argmax(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(N_IN, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        return self.head(self.backbone(x))


model = Net()
loss_fn = nn.CrossEntropyLoss()


def run_stage(optimizer, steps):
    for _ in range(steps):
        x, y = make_batch()
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()


for p in model.backbone.parameters():
    p.requires_grad_(False)
run_stage(torch.optim.AdamW(model.head.parameters(), lr=3e-3), steps=5)

for p in model.backbone.parameters():
    p.requires_grad_(True)
run_stage(torch.optim.AdamW(model.parameters(), lr=1e-3), steps=100)
