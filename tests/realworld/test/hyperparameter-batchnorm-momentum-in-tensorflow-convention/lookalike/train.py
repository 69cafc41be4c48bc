import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# ported from the TensorFlow implementation; batch norm settings follow its defaults
hparams = {
    "hidden": 128,
    "bn_decay": 0.99,
    "bn_eps": 1e-3,
    "batch_size": 64,
    "lr": 1e-3,
    "epochs": 20,
}


class BatchNormBlock(nn.Module):
    def __init__(self, in_dim, out_dim, hp):
        super().__init__()
        self.linear = nn.Linear(in_dim, out_dim, bias=False)
        # TF keeps `decay` of the old running value; PyTorch's momentum is the weight of the new batch
        self.bn = nn.BatchNorm1d(out_dim, momentum=1.0 - hp["bn_decay"], eps=hp["bn_eps"])

    def forward(self, x):
        return F.relu(self.bn(self.linear(x)))


class Classifier(nn.Module):
    def __init__(self, in_dim, n_classes, hp):
        super().__init__()
        self.blocks = nn.Sequential(
            BatchNormBlock(in_dim, hp["hidden"], hp),
            BatchNormBlock(hp["hidden"], hp["hidden"], hp),
            BatchNormBlock(hp["hidden"], hp["hidden"], hp),
        )
        self.out = nn.Linear(hp["hidden"], n_classes)

    def forward(self, x):
        return self.out(self.blocks(x))


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    scales = np.geomspace(0.5, 5.0, 24)
    offsets = np.linspace(-3.0, 3.0, 24)
    z = rng.normal(size=(n, 24))
    w = np.random.default_rng(5).normal(size=(24, 5))
    y = np.argmax(z @ w, axis=1)
    x = z * scales + offsets
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def main():
    torch.manual_seed(0)
    x_tr, y_tr = make_data(1925, seed=0)
    x_va, y_va = make_data(1000, seed=1)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=hparams["batch_size"], shuffle=True)
    model = Classifier(24, 5, hparams)
    optimizer = torch.optim.Adam(model.parameters(), lr=hparams["lr"])

    for epoch in range(1, hparams["epochs"] + 1):
        total, correct, loss_sum = 0, 0, 0.0
        for xb, yb in loader:
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            total += len(yb)
        if epoch % 4 == 0:
            print(f"epoch {epoch} train_loss {loss_sum / total:.4f} train_acc {correct / total:.3f} "
                  f"val_acc {evaluate(model, x_va, y_va):.3f}")


if __name__ == "__main__":
    main()
