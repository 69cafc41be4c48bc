import argparse

import numpy as np
import torch
from sklearn.metrics import log_loss, roc_auc_score
from torch.utils.data import DataLoader, TensorDataset

from autoint import AutoInt

CONFIG = {
    "field_vocab_sizes": [1000, 500, 200, 50, 24, 7, 300, 80],
    "embedding_dim": 16,
    "attention_layers": 3,
    "num_heads": 2,
    "attention_dim": 16,
    "use_residual": True,
    "use_scale": True,
    "batch_size": 1024,
    "learning_rate": 1e-3,
    "epochs": 5,
}


def load_split(path):
    data = np.load(path)
    return TensorDataset(torch.from_numpy(data["X"]).long(),
                         torch.from_numpy(data["y"]).float())


def evaluate(model, loader, device):
    model.eval()
    preds, labels = [], []
    with torch.no_grad():
        for X, y in loader:
            preds.append(torch.sigmoid(model(X.to(device))).cpu())
            labels.append(y)
    preds = torch.cat(preds).numpy()
    labels = torch.cat(labels).numpy()
    return log_loss(labels, preds), roc_auc_score(labels, preds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="data/criteo_x1/train.npz")
    parser.add_argument("--valid", default="data/criteo_x1/valid.npz")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    cfg = dict(CONFIG)
    train_loader = DataLoader(load_split(args.train), batch_size=cfg["batch_size"], shuffle=True)
    valid_loader = DataLoader(load_split(args.valid), batch_size=cfg["batch_size"])

    model = AutoInt(
        cfg["field_vocab_sizes"],
        embedding_dim=cfg["embedding_dim"],
        attention_layers=cfg["attention_layers"],
        num_heads=cfg["num_heads"],
        attention_dim=cfg["attention_dim"],
        use_residual=cfg["use_residual"],
        use_scale=cfg["use_scale"],
    ).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["learning_rate"])
    criterion = torch.nn.BCEWithLogitsLoss()

    for epoch in range(cfg["epochs"]):
        model.train()
        total = 0.0
        for X, y in train_loader:
            X, y = X.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(X), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
        val_logloss, val_auc = evaluate(model, valid_loader, device)
        print(f"epoch {epoch}: train {total / len(train_loader.dataset):.4f} "
              f"val logloss {val_logloss:.4f} auc {val_auc:.4f}")
        torch.save(model.state_dict(), "autoint.pt")


if __name__ == "__main__":
    main()
