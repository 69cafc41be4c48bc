"""Categorical VAE on binarised MNIST with the Gumbel-softmax relaxation."""

import argparse

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torchvision import datasets, transforms

parser = argparse.ArgumentParser(description="Gumbel-softmax VAE")
parser.add_argument("--batch-size", type=int, default=100)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--temp", type=float, default=1.0)
parser.add_argument("--hard", action="store_true")
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()

latent_dim = 30
categorical_dim = 10
temp_min = 0.5
anneal_rate = 0.00003

torch.manual_seed(args.seed)
train_loader = torch.utils.data.DataLoader(
    datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor()),
    batch_size=args.batch_size, shuffle=True)
test_loader = torch.utils.data.DataLoader(
    datasets.MNIST("./data", train=False, transform=transforms.ToTensor()),
    batch_size=args.batch_size, shuffle=False)


def sample_gumbel(shape, eps=1e-20):
    u = torch.rand(shape)
    return -torch.log(-torch.log(u + eps) + eps)


def gumbel_softmax(logits, temperature, hard=False):
    y = F.softmax((logits + sample_gumbel(logits.size())) / temperature, dim=-1)
    if not hard:
        return y.view(-1, latent_dim * categorical_dim)
    idx = y.argmax(dim=-1, keepdim=True)
    y_hard = torch.zeros_like(y).scatter_(-1, idx, 1.0)
    y_hard = (y_hard - y).detach() + y
    return y_hard.view(-1, latent_dim * categorical_dim)


class VAEGumbel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 512)
        self.fc2 = nn.Linear(512, 256)
        self.fc3 = nn.Linear(256, latent_dim * categorical_dim)
        self.fc4 = nn.Linear(latent_dim * categorical_dim, 256)
        self.fc5 = nn.Linear(256, 512)
        self.fc6 = nn.Linear(512, 784)

    def encode(self, x):
        h = F.relu(self.fc2(F.relu(self.fc1(x))))
        return self.fc3(h)

    def decode(self, z):
        h = F.relu(self.fc5(F.relu(self.fc4(z))))
        return torch.sigmoid(self.fc6(h))

    def forward(self, x, temp, hard):
        q = self.encode(x.view(-1, 784))
        q_y = q.view(q.size(0), latent_dim, categorical_dim)
        z = gumbel_softmax(q_y, temp, hard)
        return self.decode(z), F.softmax(q_y, dim=-1).reshape(*q.size())


def loss_function(recon_x, x, qy):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum") / x.shape[0]
    log_ratio = torch.log(qy * categorical_dim + 1e-20)
    kld = torch.sum(qy * log_ratio, dim=-1).mean()
    return bce + kld


model = VAEGumbel()
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def train(epoch):
    model.train()
    train_loss = 0.0
    temp = args.temp
    for batch_idx, (data, _) in enumerate(train_loader):
        data = (data > 0.5).float()
        optimizer.zero_grad()
        recon, qy = model(data, temp, args.hard)
        loss = loss_function(recon, data, qy)
        loss.backward()
        optimizer.step()
        train_loss += loss.item() * len(data)
        if batch_idx % 100 == 1:
            temp = np.maximum(temp * np.exp(-anneal_rate * batch_idx), temp_min)
    print(f"epoch {epoch} average loss {train_loss / len(train_loader.dataset):.4f}")


@torch.no_grad()
def test(epoch):
    model.eval()
    total = 0.0
    for data, _ in test_loader:
        data = (data > 0.5).float()
        recon, qy = model(data, temp_min, args.hard)
        total += loss_function(recon, data, qy).item() * len(data)
    print(f"epoch {epoch} test loss {total / len(test_loader.dataset):.4f}")


if __name__ == "__main__":
    for epoch in range(1, args.epochs + 1):
        train(epoch)
        test(epoch)
