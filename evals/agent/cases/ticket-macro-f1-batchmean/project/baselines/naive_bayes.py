"""Multinomial naive Bayes baseline on the same split and vocabulary (numpy only).

    python baselines/naive_bayes.py [--config configs/default.yaml]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from triage.config import load_config  # noqa: E402
from triage.data.datasets import build_data, n_classes  # noqa: E402
from triage.metrics import macro_f1  # noqa: E402


def counts_matrix(dataset, vocab_size):
    x = np.zeros((len(dataset), vocab_size))
    for i, ids in enumerate(dataset.ids):
        np.add.at(x[i], ids, 1)
    return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--alpha", type=float, default=1.0)
    args = p.parse_args()
    cfg = load_config(args.config)
    train_loader, val_loader, vocab = build_data(cfg.data)
    k = n_classes()
    xtr, ytr = counts_matrix(train_loader.dataset, len(vocab)), np.asarray(train_loader.dataset.labels)
    xva, yva = counts_matrix(val_loader.dataset, len(vocab)), np.asarray(val_loader.dataset.labels)
    prior = np.log(np.bincount(ytr, minlength=k) / len(ytr))
    word = np.stack([xtr[ytr == c].sum(0) + args.alpha for c in range(k)])
    loglik = np.log(word / word.sum(1, keepdims=True))
    pred = np.argmax(xva @ loglik.T + prior, axis=1)
    acc = (pred == yva).mean()
    f1 = macro_f1(torch.from_numpy(pred), torch.from_numpy(yva), k)
    print(f"naive bayes: val_acc={acc:.4f} val_macro_f1={f1:.4f}")


if __name__ == "__main__":
    main()
