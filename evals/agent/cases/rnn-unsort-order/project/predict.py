"""Classify utterances with a trained checkpoint.

    python predict.py runs/default/best.pt "i was charged twice for my order" "where is my parcel"
"""
from __future__ import annotations

import argparse

import torch

from intentrnn.config import TrainConfig, merge
from intentrnn.data import PadCollate
from intentrnn.model import build_model
from intentrnn.utils import load_checkpoint
from intentrnn.vocab import Vocab


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("checkpoint")
    p.add_argument("texts", nargs="+")
    args = p.parse_args(argv)
    state = load_checkpoint(args.checkpoint)
    cfg = merge(TrainConfig(), state["config"])
    vocab = Vocab(state["vocab"])
    intents = state["intents"]
    model = build_model(cfg.model, len(vocab), len(intents), vocab.pad_id)
    model.load_state_dict(state["model"])
    model.eval()
    batch = [(torch.tensor(vocab.encode(t)), 0) for t in args.texts]
    tokens, lengths, _ = PadCollate(vocab.pad_id)(batch)
    with torch.no_grad():
        probs = model(tokens, lengths).softmax(-1)
    for text, pr in zip(args.texts, probs):
        k = int(pr.argmax())
        print(f"{intents[k]:9s} {pr[k]:.2f}  {text}")


if __name__ == "__main__":
    main()
