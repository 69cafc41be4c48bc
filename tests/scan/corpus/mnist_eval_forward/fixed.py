"""MNIST-style train/test functions in the classic example layout."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(8 * 26 * 26, 10)

    def forward(self, x):
        x = self.drop(F.relu(self.conv(x)))
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 10 == 0:
            print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.4f}")


def test(model, device, test_loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += (output.argmax(dim=1) == target).sum().item()
    return test_loss / len(test_loader.dataset), correct


def main(train_loader, test_loader, epochs=14):
    device = torch.device("cpu")
    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, epochs + 1):
        train(model, device, train_loader, optimizer, epoch)
        print(test(model, device, test_loader))
        scheduler.step()
