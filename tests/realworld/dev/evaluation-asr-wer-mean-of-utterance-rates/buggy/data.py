"""Synthetic spoken-command corpus: each utterance is a short phrase of
command words rendered as noisy per-character feature frames."""
import numpy as np
import torch
from torch.utils.data import Dataset

LABELS = "_ abcdefghijklmnopqrstuvwxyz"   # index 0 is the CTC blank
WORDS = ["go", "stop", "left", "right", "up", "down", "yes", "no",
         "on", "off", "forward", "back", "turn", "fast", "slow"]
FRAMES_PER_CHAR = 2


def encode(text):
    return [LABELS.index(c) for c in text]


def render(text, rng, noise):
    """One feature frame per character repeat, one-hot over LABELS plus noise."""
    frames = []
    for c in text:
        for _ in range(FRAMES_PER_CHAR):
            f = np.zeros(len(LABELS), dtype=np.float32)
            f[LABELS.index(c)] = 1.0
            frames.append(f)
    feats = np.stack(frames)
    feats += noise * rng.standard_normal(feats.shape).astype(np.float32)
    return feats


class CommandCorpus(Dataset):
    def __init__(self, n_utts, seed, noise=0.35, max_words=12):
        rng = np.random.default_rng(seed)
        self.items = []
        for _ in range(n_utts):
            # spoken commands: mostly one or two words, a few long phrases
            n_words = min(int(rng.geometric(0.35)), max_words)
            text = " ".join(rng.choice(WORDS, size=n_words))
            self.items.append((render(text, rng, noise), text))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        feats, text = self.items[idx]
        return torch.from_numpy(feats), text


def collate(batch):
    feats, texts = zip(*batch)
    lengths = torch.tensor([f.shape[0] for f in feats])
    padded = torch.zeros(len(feats), int(lengths.max()), feats[0].shape[1])
    for i, f in enumerate(feats):
        padded[i, : f.shape[0]] = f
    targets = [torch.tensor(encode(t)) for t in texts]
    target_lengths = torch.tensor([len(t) for t in targets])
    return padded, lengths, torch.cat(targets), target_lengths, list(texts)
