"""Score a saved model on the validation split and print per-intent recall.

    python evaluate.py [--ckpt runs/default/model.pt]
"""
import argparse
import json

import torch

from intentcls import config as config_lib
from intentcls.data import IntentDataset, PadCollator, WordTokenizer
from intentcls.data.synth import generate
from intentcls.metrics import ConfusionMatrix
from intentcls.models import build_model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", default="runs/default/model.pt")
    args = parser.parse_args()
    torch.set_num_threads(1)

    ckpt = torch.load(args.ckpt)
    cfg = config_lib.from_dict(ckpt["config"])
    tokenizer = WordTokenizer(ckpt["itos"])
    names = ckpt["intents"]
    rows, _ = generate(cfg.data.n_train + cfg.data.n_val, seed=cfg.data.seed, label_noise=cfg.data.label_noise)
    val = IntentDataset(rows[cfg.data.n_train:], tokenizer, cfg.data.max_len)
    loader = torch.utils.data.DataLoader(val, batch_size=256, collate_fn=PadCollator(tokenizer.pad_id))
    model = build_model(cfg.model, len(tokenizer), len(names), tokenizer.pad_id)
    model.load_state_dict(ckpt["model"])

    cm = ConfusionMatrix(len(names))
    model.eval()
    with torch.no_grad():
        for batch in loader:
            cm.update(model(batch["input_ids"], batch["attention_mask"]), batch["labels"])
    scores = cm.compute()
    recall = (cm.matrix.diag().double() / cm.matrix.sum(1).clamp(min=1)).tolist()
    scores["recall"] = {name: round(r, 3) for name, r in zip(names, recall)}
    print(json.dumps(scores, indent=2))


if __name__ == "__main__":
    main()
