import torch
from torch.utils.data import DataLoader, Dataset

from .synth import make_split
from .tokenizer import WordTokenizer


class ClipCaptionDataset(Dataset):
    def __init__(self, clips, captions, attrs, tokenizer, max_len, mean, std):
        self.clips = torch.from_numpy(clips)
        self.captions = captions
        self.attrs = torch.as_tensor(attrs)
        self.tok = tokenizer
        self.max_len = max_len
        self.mean, self.std = mean, std

    def __len__(self):
        return len(self.captions)

    def __getitem__(self, i):
        audio = (self.clips[i] - self.mean) / self.std
        return audio, torch.tensor(self.tok.encode(self.captions[i], self.max_len)), i


class PadCollate:
    def __init__(self, pad_id: int):
        self.pad_id = pad_id

    def __call__(self, batch):
        audio, tokens, index = zip(*batch)
        length = max(len(t) for t in tokens)
        ids = torch.full((len(tokens), length), self.pad_id, dtype=torch.long)
        for row, t in enumerate(tokens):
            ids[row, :len(t)] = t
        return {"audio": torch.stack(audio), "tokens": ids, "pad_mask": ids == self.pad_id,
                "index": torch.tensor(index)}


def build_loaders(cfg):
    tr = make_split(cfg.n_train, cfg.n_mels, cfg.frames, seed=cfg.seed)
    va = make_split(cfg.n_val, cfg.n_mels, cfg.frames, seed=cfg.seed + 1)
    tok = WordTokenizer.fit(tr[1])
    mean, std = float(tr[0].mean()), float(tr[0].std())
    train_ds = ClipCaptionDataset(*tr, tok, cfg.max_len, mean, std)
    val_ds = ClipCaptionDataset(*va, tok, cfg.max_len, mean, std)
    collate = PadCollate(tok.pad_id)
    train = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                       collate_fn=collate, generator=torch.Generator().manual_seed(cfg.seed))
    val = DataLoader(val_ds, batch_size=cfg.eval_batch_size, shuffle=False, collate_fn=collate)
    return train, val, tok
