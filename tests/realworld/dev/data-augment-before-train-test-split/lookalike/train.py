import torch
import torch.nn as nn

from prep import prepare

CFG = {"seed": 0, "n": 400, "dim": 32, "copies": 4, "epochs": 150, "lr": 3e-3}


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))

    def forward(self, x):
        return self.net(x)


def fit(clf, X_tr, y_tr, X_te, y_te, cfg):
    opt = torch.optim.Adam(clf.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    for epoch in range(cfg["epochs"]):
        opt.zero_grad()
        loss = criterion(clf(X_tr), y_tr)
        loss.backward()
        opt.step()
        if epoch % 30 == 0 or epoch == cfg["epochs"] - 1:
            with torch.no_grad():
                acc = (clf(X_te).argmax(1) == y_te).float().mean().item()
            print(f"epoch {epoch} train_loss {loss.item():.4f} test_acc {acc:.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    X_tr, X_te, y_tr, y_te = [torch.as_tensor(a) for a in prepare(CFG)]
    fit(MLP(CFG["dim"]), X_tr, y_tr, X_te, y_te, CFG)
