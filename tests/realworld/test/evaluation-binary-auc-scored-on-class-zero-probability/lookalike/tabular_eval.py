"""Train a small in-context tabular classifier and score it on held-out binary tasks."""

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch import nn


class TinyTabPFN(nn.Module):
    """Context rows (x, y) and query rows x -> one positive-class logit per query row."""

    def __init__(self, num_features, num_classes=2, d_model=96, n_heads=4, n_layers=3):
        super().__init__()
        self.x_enc = nn.Linear(num_features, d_model)
        self.y_enc = nn.Embedding(num_classes, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 2 * d_model, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, 1)

    def forward(self, x_ctx, y_ctx, x_qry):
        ctx = self.x_enc(x_ctx) + self.y_enc(y_ctx)
        qry = self.x_enc(x_qry)
        tokens = torch.cat([ctx, qry], dim=1)
        n_ctx, n_all = ctx.shape[1], tokens.shape[1]
        mask = torch.zeros(n_all, n_all, dtype=torch.bool)
        mask[:, n_ctx:] = True
        out = self.encoder(tokens, mask=mask)
        return self.head(out[:, n_ctx:])


def sample_prior_task(num_rows, num_features, gen):
    x = torch.randn(num_rows, num_features, generator=gen)
    w = torch.randn(num_features, generator=gen)
    logits = x @ w + 0.5 * torch.randn(num_rows, generator=gen)
    y = (logits > logits.median()).long()
    return x, y


def train_on_prior(model, steps=2000, batch=16, rows=128, features=30, seed=0):
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model.train()
    for step in range(steps):
        xs, ys = zip(*[sample_prior_task(rows, features, gen) for _ in range(batch)])
        x, y = torch.stack(xs), torch.stack(ys)
        cut = rows // 2
        logits = model(x[:, :cut], y[:, :cut], x[:, cut:])
        loss = F.binary_cross_entropy_with_logits(logits.squeeze(-1), y[:, cut:].float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 200 == 0:
            print(f"step {step} prior loss {loss.item():.4f}")


@torch.no_grad()
def evaluate(model, x_train, y_train, x_test, y_test):
    model.eval()
    x_ctx = torch.tensor(x_train, dtype=torch.float32)[None]
    y_ctx = torch.tensor(y_train, dtype=torch.long)[None]
    x_qry = torch.tensor(x_test, dtype=torch.float32)[None]
    prob = torch.sigmoid(model(x_ctx, y_ctx, x_qry)[0]).numpy()
    pred = (prob[:, 0] > 0.5).astype(int)
    acc = accuracy_score(y_test, pred)
    auc = roc_auc_score(y_test, prob[:, :1])
    return acc, auc


def main():
    x, y = load_breast_cancer(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, stratify=y, random_state=0)
    scaler = StandardScaler().fit(x_train)
    x_train, x_test = scaler.transform(x_train), scaler.transform(x_test)

    model = TinyTabPFN(num_features=x.shape[1])
    train_on_prior(model, features=x.shape[1])
    acc, auc = evaluate(model, x_train, y_train, x_test, y_test)
    print(f"breast_cancer  accuracy {acc:.3f}  roc_auc {auc:.3f}")


if __name__ == "__main__":
    main()
