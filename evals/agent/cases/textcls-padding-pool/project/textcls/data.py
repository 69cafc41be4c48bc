from __future__ import annotations

import random

import torch
from torch.utils.data import DataLoader, Dataset, Sampler

PAD, UNK = "<pad>", "<unk>"
POSITIVE = ["good", "great", "excellent", "love", "wonderful", "best", "enjoyed", "fantastic"]
NEGATIVE = ["bad", "awful", "terrible", "hate", "boring", "worst", "disappointing", "poor"]
NEUTRAL = [
    "the", "a", "movie", "film", "plot", "actor", "was", "is", "and", "it", "this", "story",
    "scene", "music", "director", "very", "quite", "really", "ending", "cast", "of", "in",
]


def make_review(rng: random.Random, min_len: int, max_len: int) -> tuple[list[str], int]:
    length = rng.randint(min_len, max_len)
    label = rng.randint(0, 1)
    words = [rng.choice(NEUTRAL) for _ in range(length)]
    n_cues = max(1, length // 8)
    pool, other = (POSITIVE, NEGATIVE) if label == 1 else (NEGATIVE, POSITIVE)
    for pos in rng.sample(range(length), n_cues):
        words[pos] = rng.choice(pool)
    if length > 10 and rng.random() < 0.3:
        words[rng.randrange(length)] = rng.choice(other)
    return words, label


class Vocab:
    def __init__(self, words: list[str]):
        self.itos = [PAD, UNK] + sorted(set(words))
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @property
    def pad_id(self) -> int:
        return self.stoi[PAD]

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, words: list[str]) -> list[int]:
        return [self.stoi.get(w, self.stoi[UNK]) for w in words]


class ReviewDataset(Dataset):
    def __init__(self, examples: list[tuple[list[str], int]], vocab: Vocab):
        self.items = [(torch.tensor(vocab.encode(w), dtype=torch.long), y) for w, y in examples]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class PadCollate:
    def __init__(self, pad_id: int):
        self.pad_id = pad_id

    def __call__(self, batch):
        seqs, labels = zip(*batch)
        lengths = torch.tensor([len(s) for s in seqs])
        ids = torch.full((len(seqs), int(lengths.max())), self.pad_id, dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, : len(s)] = s
        return ids, lengths, torch.tensor(labels)


def build_datasets(cfg):
    rng = random.Random(cfg.seed)
    train = [make_review(rng, cfg.min_len, cfg.max_len) for _ in range(cfg.n_train)]
    val = [make_review(rng, cfg.min_len, cfg.max_len) for _ in range(cfg.n_val)]
    vocab = Vocab(POSITIVE + NEGATIVE + NEUTRAL)
    return vocab, ReviewDataset(train, vocab), ReviewDataset(val, vocab)


class BucketBatchSampler(Sampler):
    """Batches of similar length (less padding, faster epochs); batch order is shuffled."""

    def __init__(self, lengths: list[int], batch_size: int, seed: int = 0, bucket_factor: int = 20):
        self.lengths = lengths
        self.batch_size = batch_size
        self.bucket_size = batch_size * bucket_factor
        self.seed = seed
        self.epoch = 0

    def __iter__(self):
        rng = random.Random(self.seed + self.epoch)
        self.epoch += 1
        order = list(range(len(self.lengths)))
        rng.shuffle(order)
        batches = []
        for start in range(0, len(order), self.bucket_size):
            bucket = sorted(order[start : start + self.bucket_size], key=lambda i: self.lengths[i])
            batches += [bucket[i : i + self.batch_size] for i in range(0, len(bucket), self.batch_size)]
        rng.shuffle(batches)
        return iter(batches)

    def __len__(self) -> int:
        n, total = len(self.lengths), 0
        for start in range(0, n, self.bucket_size):
            size = min(self.bucket_size, n - start)
            total += (size + self.batch_size - 1) // self.batch_size
        return total


def make_train_loader(ds: ReviewDataset, vocab: Vocab, batch_size: int, seed: int = 0) -> DataLoader:
    sampler = BucketBatchSampler([len(x) for x, _ in ds.items], batch_size, seed)
    return DataLoader(ds, batch_sampler=sampler, collate_fn=PadCollate(vocab.pad_id))


def make_eval_loader(ds: ReviewDataset, vocab: Vocab, batch_size: int) -> DataLoader:
    return DataLoader(ds, batch_size=batch_size, shuffle=False, collate_fn=PadCollate(vocab.pad_id))
