"""Zoo case sigmoid_into_bce_logits (buggy): a sigmoid output fed to BCEWithLogitsLoss"""
import torch
from torch import nn

torch.manual_seed(0)
N_IN, N_CLASSES, BATCH = 8, 4, 64
TEACHER = torch.randn(N_IN, N_CLASSES)


def make_batch():
    x = torch.randn(BATCH, N_IN)
    y = ((x @ TEACHER)[:, 0] > 0).float().unsqueeze(1)
    return x, y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_IN, 32)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc2(self.act(self.fc1(x))))


model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.BCEWithLogitsLoss()

for step in range(200):
    x, y = make_batch()
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        model.eval()
        with torch.no_grad():
            xv, yv = make_batch()
            acc = ((model(xv) > 0).float() == yv).float().mean()
        model.train()
        print(step, loss.item(), acc.item())
