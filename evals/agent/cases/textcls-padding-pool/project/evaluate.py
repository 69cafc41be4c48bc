from __future__ import annotations

import argparse
import json
import os

import torch

from textcls.config import Config
from textcls.data import build_datasets, make_eval_loader
from textcls.engine import evaluate
from textcls.model import build_model


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description="Evaluate a trained checkpoint on the validation split")
    parser.add_argument("--run-dir", default="runs/textcls")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args(argv)

    cfg = Config.load(os.path.join(args.run_dir, "config.json"))
    vocab, _, val_ds = build_datasets(cfg)
    model = build_model(cfg, vocab)
    model.load_state_dict(torch.load(os.path.join(args.run_dir, "model.pt")))
    result = evaluate(model, make_eval_loader(val_ds, vocab, args.batch_size))
    print(json.dumps({"batch_size": args.batch_size, **result}))
    return result


if __name__ == "__main__":
    main()
