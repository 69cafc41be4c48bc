"""Score the best checkpoint on a fresh month of customers (what production sees)."""
from __future__ import annotations

import argparse
import json
import os
import pickle

import torch

from churn.config import load_config
from churn.data import to_loader
from churn.metrics import binary_metrics, predict
from churn.model import ChurnMLP
from churn.simulate import simulate_customers


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--run-dir", default="runs/churn")
    parser.add_argument("--month-seed", type=int, default=2024)
    parser.add_argument("--n", type=int, default=4000)
    args = parser.parse_args(argv)
    cfg = load_config(args.config)

    with open(os.path.join(args.run_dir, "encoder.pkl"), "rb") as f:
        encoder = pickle.load(f)
    model = ChurnMLP(encoder.n_features, cfg.model.hidden, cfg.model.dropout)
    model.load_state_dict(torch.load(os.path.join(args.run_dir, "model.pt")))
    month = simulate_customers(args.n, cfg.data.churn_rate, args.month_seed)
    result = binary_metrics(*predict(model, to_loader(month, encoder, 1024, shuffle=False)))
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
