"""Synthetic 'line image' features for a tiny CTC recogniser: one feature column per frame."""
import numpy as np
import torch
from torch.utils.data import Dataset

ALPHABET = "abcdef"
BLANK = 0


class CharEncoder:
    """Maps text to CTC target ids and back. Index BLANK is reserved for the CTC blank."""

    def __init__(self, alphabet=ALPHABET):
        self.alphabet = alphabet
        self.char2idx = {ch: i for i, ch in enumerate(alphabet)}
        self.idx2char = {i: ch for ch, i in self.char2idx.items()}

    @property
    def num_classes(self):
        return len(self.alphabet) + 1

    def encode(self, text):
        return [self.char2idx[ch] for ch in text]

    def decode_greedy(self, best_path):
        out, prev = [], None
        for idx in best_path:
            if idx != prev and idx != BLANK:
                out.append(self.idx2char.get(idx, ""))
            prev = idx
        return "".join(out)


class SyntheticLines(Dataset):
    def __init__(self, n=600, feat_dim=16, max_frames=40, seed=0, glyph_seed=1234):
        protos = np.random.default_rng(glyph_seed).normal(size=(len(ALPHABET), feat_dim)).astype(np.float32)
        rng = np.random.default_rng(seed)
        self.items = []
        for _ in range(n):
            text = "".join(rng.choice(list(ALPHABET), size=rng.integers(3, 7)))
            frames = []
            for ch in text:
                frames += [np.zeros(feat_dim, np.float32)] * int(rng.integers(0, 3))
                frames += [protos[ALPHABET.index(ch)]] * int(rng.integers(2, 4))
            frames = np.stack(frames)[:max_frames]
            frames = frames + 0.3 * rng.normal(size=frames.shape).astype(np.float32)
            self.items.append((torch.from_numpy(frames), text))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def make_collate(encoder):
    def collate(batch):
        feats = [f for f, _ in batch]
        texts = [t for _, t in batch]
        lengths = torch.tensor([len(f) for f in feats])
        padded = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
        targets = torch.cat([torch.tensor(encoder.encode(t)) for t in texts])
        target_lengths = torch.tensor([len(t) for t in texts])
        return padded, lengths, targets, target_lengths, texts
    return collate
