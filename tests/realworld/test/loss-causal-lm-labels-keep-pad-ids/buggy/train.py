import random

import torch

from data import VOCAB, collate, make_corpus
from model import TinyCausalLM


@torch.no_grad()
def real_token_accuracy(lm, seqs):
    batch = collate(seqs)
    logits = lm(batch["input_ids"])["logits"][:, :-1]
    target = batch["input_ids"][:, 1:]
    keep = batch["attention_mask"][:, 1:].bool()
    return (logits.argmax(-1)[keep] == target[keep]).float().mean().item()


def train(lm, corpus, val, steps=100, batch_size=32, lr=3e-3):
    opt = torch.optim.AdamW(lm.parameters(), lr=lr)
    rng = random.Random(0)
    for step in range(steps):
        batch = collate(rng.sample(corpus, batch_size))
        out = lm(**batch)
        opt.zero_grad()
        out["loss"].backward()
        opt.step()
        if step % 40 == 0 or step == steps - 1:
            print(f"step {step} train loss {out['loss'].item():.4f} "
                  f"val next-token acc {real_token_accuracy(lm, val):.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    lm = TinyCausalLM(VOCAB)
    train(lm, make_corpus(2000, seed=1), make_corpus(300, seed=2))
