import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import DeepCTR

CONFIG = {
    "field_vocab_sizes": [50, 30, 20, 10],
    "num_dense": 4,
    "embedding_dim": 8,
    "dnn_hidden_units": (64, 32),
    "batch_size": 256,
    "epochs": 4,
    "lr": 1e-3,
}


def synthetic_clicks(n, cfg, seed=0):
    rng = np.random.default_rng(seed)
    sparse = np.stack([rng.integers(0, v, n) for v in cfg["field_vocab_sizes"]], axis=1)
    dense = rng.normal(size=(n, cfg["num_dense"])).astype(np.float32)
    field_effects = [rng.normal(scale=1.0, size=v) for v in cfg["field_vocab_sizes"]]
    score = sum(field_effects[i][sparse[:, i]] for i in range(sparse.shape[1]))
    score = score + dense @ rng.normal(size=cfg["num_dense"]) - 0.5
    clicks = (rng.random(n) < 1 / (1 + np.exp(-score))).astype(np.float32)
    return TensorDataset(torch.as_tensor(sparse, dtype=torch.long),
                         torch.as_tensor(dense), torch.as_tensor(clicks))


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    loader = DataLoader(synthetic_clicks(4096, cfg), batch_size=cfg["batch_size"], shuffle=True)
    model = DeepCTR(cfg["field_vocab_sizes"], cfg["num_dense"], cfg["embedding_dim"],
                    cfg["dnn_hidden_units"])
    optim = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    step = 0
    for epoch in range(cfg["epochs"]):
        model.train()
        total, seen = 0.0, 0
        for sparse, dense, y in loader:
            logit = model(sparse, dense)
            loss = F.binary_cross_entropy_with_logits(logit, y)
            optim.zero_grad()
            loss.backward()
            optim.step()
            total += loss.item() * len(y)
            seen += len(y)
            step += 1
        print(f"epoch {epoch} steps {step} logloss {total / seen:.4f}")

    n_params = sum(p.numel() for p in model.parameters())
    print(f"trainable parameters: {n_params}")


if __name__ == "__main__":
    main()
