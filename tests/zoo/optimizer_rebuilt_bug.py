"""Zoo case optimizer_rebuilt (buggy): Adam is constructed inside the batch loop"""
import torch
from torch import nn

torch.manual_seed(0)
N_IN, N_CLASSES, BATCH = 8, 4, 64
TEACHER = torch.randn(N_IN, N_CLASSES)


def make_batch():
    x = torch.randn(BATCH, N_IN)
    y = (x @ TEACHER).argmax(1)
    return x, y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_IN, 32)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(32, N_CLASSES)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


model = Net()
loss_fn = nn.CrossEntropyLoss()

for step in range(200):
    x, y = make_batch()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(step, loss.item())
