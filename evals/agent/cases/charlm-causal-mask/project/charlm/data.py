from __future__ import annotations

import random

import torch

SUBJECTS = ["the cat", "a dog", "my friend", "the old man", "her sister", "the robot", "our teacher"]
VERBS = ["sees", "likes", "follows", "paints", "finds", "remembers", "carries"]
OBJECTS = ["the ball", "a red box", "the river", "some bread", "the moon", "a small bird", "the garden"]
ENDINGS = [" today.", " again.", " slowly.", ".", " at night.", " with care."]


def generate_corpus(n_sentences: int, seed: int) -> str:
    """A toy language: subject-verb-object sentences with a few fixed endings."""
    rng = random.Random(seed)
    sentences = []
    for _ in range(n_sentences):
        s = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(ENDINGS)}"
        sentences.append(s)
    return "\n".join(sentences) + "\n"


class CharTokenizer:
    def __init__(self, text: str):
        self.chars = sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(self.chars)}
        self.itos = {i: c for c, i in self.stoi.items()}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, s: str) -> list[int]:
        return [self.stoi[c] for c in s]

    def decode(self, ids) -> str:
        return "".join(self.itos[int(i)] for i in ids)


class TokenStream:
    """Random contiguous windows of a token tensor, as (input, next-token target) pairs."""

    def __init__(self, tokens: torch.Tensor, block_size: int):
        if len(tokens) <= block_size + 1:
            raise ValueError("split is shorter than one block")
        self.tokens = tokens
        self.block_size = block_size

    def get_batch(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        hi = len(self.tokens) - self.block_size - 1
        starts = torch.randint(0, hi, (batch_size,), generator=generator)
        x = torch.stack([self.tokens[s : s + self.block_size] for s in starts.tolist()])
        y = torch.stack([self.tokens[s + 1 : s + 1 + self.block_size] for s in starts.tolist()])
        return x, y


def build_data(cfg) -> tuple[CharTokenizer, TokenStream, TokenStream]:
    text = generate_corpus(cfg.corpus_sentences, cfg.seed)
    tok = CharTokenizer(text)
    ids = torch.tensor(tok.encode(text), dtype=torch.long)
    n_val = int(len(ids) * cfg.val_fraction)
    train_ids, val_ids = ids[:-n_val], ids[-n_val:]
    return tok, TokenStream(train_ids, cfg.block_size), TokenStream(val_ids, cfg.block_size)
