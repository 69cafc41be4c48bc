import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data import make_split
from evaluate import full_accuracy

WORLD_SIZE = 8
RANK = 0


def fit(clf, loader, sampler, epochs=15, lr=0.05):
    opt = torch.optim.SGD(clf.parameters(), lr=lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        total = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(clf(x), y)
            loss.backward()
            opt.step()
            total += loss.item() * len(x)
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch} train loss {total / len(sampler):.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train_set, val_set = make_split(509, seed=1), make_split(21, seed=2)
    clf = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    # training shard of one rank; the sampler pads the 509 samples to 512, harmless for SGD
    sampler = DistributedSampler(train_set, num_replicas=WORLD_SIZE, rank=RANK, shuffle=True, seed=0)
    fit(clf, DataLoader(train_set, batch_size=8, sampler=sampler), sampler)
    print(f"val accuracy (rank 0 evaluates the whole split): {full_accuracy(clf, val_set):.4f}")
