import random

import torch
from torch.utils.data import Dataset


class MaskedSentenceDataset(Dataset):
    def __init__(self, path, tokenizer, max_len=256, mask_prob=0.15):
        with open(path, encoding="utf8") as f:
            self.lines = [line.strip() for line in f if line.strip()]
        self.tok = tokenizer
        self.max_len = max_len
        self.mask_prob = mask_prob
        self.special = set(tokenizer.all_special_ids)

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, idx):
        enc = self.tok(self.lines[idx], truncation=True, max_length=self.max_len)
        truth = enc["input_ids"]
        masked = list(truth)
        labels = [-100] * len(truth)
        cl_mask = [0.0] * len(truth)
        for i, t in enumerate(truth):
            if t in self.special or random.random() >= self.mask_prob:
                continue
            labels[i] = t
            cl_mask[i] = 1.0
            r = random.random()
            if r < 0.8:
                masked[i] = self.tok.mask_token_id
            elif r < 0.9:
                masked[i] = random.randrange(len(self.tok))
        return truth, masked, enc["token_type_ids"], labels, cl_mask


def collate(batch, pad_id=0):
    max_len = max(len(b[0]) for b in batch)

    def pad(seq, value):
        return seq + [value] * (max_len - len(seq))

    truth = torch.tensor([pad(b[0], pad_id) for b in batch])
    masked = torch.tensor([pad(b[1], pad_id) for b in batch])
    segs = torch.tensor([pad(b[2], 0) for b in batch])
    attn = torch.tensor([pad([1] * len(b[0]), 0) for b in batch])
    labels = torch.tensor([pad(b[3], -100) for b in batch])
    cl_mask = torch.tensor([pad(b[4], 0.0) for b in batch])
    return truth, masked, segs, attn, labels, cl_mask
