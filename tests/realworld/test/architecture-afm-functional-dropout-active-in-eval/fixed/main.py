import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

from torchfm.model.afm import AttentionalFactorizationMachineModel


def synthetic_criteo(n=20000, field_dims=(10, 20, 30, 15, 8, 12), seed=0):
    g = torch.Generator().manual_seed(seed)
    cols = [torch.randint(0, d, (n,), generator=g) for d in field_dims]
    x = torch.stack(cols, dim=1)
    logit = ((x[:, 0] % 3 == 0) & (x[:, 1] % 2 == 0)).float() * 2 - 1 + 0.3 * torch.randn(n, generator=g)
    y = (logit > 0).float()
    return TensorDataset(x, y), list(field_dims)


def roc_auc(y_true, y_score):
    order = np.argsort(y_score)
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    pos = y_true == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def train(model, optimizer, data_loader, criterion):
    model.train()
    for fields, target in data_loader:
        y = model(fields)
        loss = criterion(y, target)
        model.zero_grad()
        loss.backward()
        optimizer.step()


def test(model, data_loader):
    model.eval()
    targets, predicts = [], []
    with torch.no_grad():
        for fields, target in data_loader:
            y = model(fields)
            targets.extend(target.tolist())
            predicts.extend(y.tolist())
    return roc_auc(np.array(targets), np.array(predicts))


def main(epochs=5):
    torch.manual_seed(0)
    dataset, field_dims = synthetic_criteo()
    train_set, valid_set = random_split(dataset, [16000, 4000], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=256, shuffle=True)
    valid_loader = DataLoader(valid_set, batch_size=256)
    model = AttentionalFactorizationMachineModel(field_dims, embed_dim=16, attn_size=16, dropouts=(0.2, 0.2))
    criterion = torch.nn.BCELoss()
    optimizer = torch.optim.Adam(params=model.parameters(), lr=1e-3, weight_decay=1e-6)
    for epoch_i in range(epochs):
        train(model, optimizer, train_loader, criterion)
        print("epoch:", epoch_i, "validation: auc:", test(model, valid_loader))


if __name__ == "__main__":
    main()
