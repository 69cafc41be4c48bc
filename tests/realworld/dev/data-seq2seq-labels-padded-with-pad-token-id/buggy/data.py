import torch
from torch.utils.data import Dataset


class SummaryDataset(Dataset):
    def __init__(self, df, tokenizer, source_len=512, target_len=64):
        self.tok = tokenizer
        self.src = df["text"].tolist()
        self.tgt = df["summary"].tolist()
        self.source_len, self.target_len = source_len, target_len

    def __len__(self):
        return len(self.src)

    def __getitem__(self, i):
        s = self.tok("summarize: " + self.src[i], max_length=self.source_len, padding="max_length", truncation=True, return_tensors="pt")
        t = self.tok(self.tgt[i], max_length=self.target_len, padding="max_length", truncation=True, return_tensors="pt")
        return {"input_ids": s.input_ids[0], "attention_mask": s.attention_mask[0], "labels": t.input_ids[0]}
