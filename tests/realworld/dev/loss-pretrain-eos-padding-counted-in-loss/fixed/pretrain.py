import torch
import torch.nn as nn

from config import cfg


def pad_batch(seqs, pad_idx):
    n = max(len(s) for s in seqs)
    out = torch.full((len(seqs), n), pad_idx, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s)
    return out


class PretrainStep:
    def __init__(self, lm, optimizer):
        self.lm = lm
        self.optimizer = optimizer
        self.loss_func = nn.CrossEntropyLoss(ignore_index=cfg.ignore_index)

    def __call__(self, token_lists):
        ids = pad_batch(token_lists, pad_idx=cfg.eos_id)
        logits = self.lm(ids[:, :-1])
        labels = ids[:, 1:].clone()
        lengths = torch.tensor([len(s) for s in token_lists])
        pos = torch.arange(1, ids.size(1))
        labels[pos[None, :] >= lengths[:, None]] = cfg.ignore_index
        loss = self.loss_func(logits.reshape(-1, cfg.vocab_size), labels.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()
