import json

import torch
from torch.utils.data import Dataset
from transformers import AutoTokenizer


class ShareGPTDataset(Dataset):
    def __init__(self, path, tokenizer_name, max_len=1024):
        self.tok = AutoTokenizer.from_pretrained(tokenizer_name)
        with open(path) as f:
            self.convs = json.load(f)
        self.max_len = max_len

    def __len__(self):
        return len(self.convs)

    def __getitem__(self, i):
        msgs = [{"role": "user" if t["from"] == "human" else "assistant", "content": t["value"]}
                for t in self.convs[i]["conversations"]]
        ids = self.tok.apply_chat_template(msgs, truncation=True, max_length=self.max_len)
        ids = torch.tensor(ids)
        return {"input_ids": ids, "labels": ids.clone()}


def collate(batch):
    n = max(len(b["input_ids"]) for b in batch)
    ids = torch.zeros(len(batch), n, dtype=torch.long)
    labels = torch.full((len(batch), n), -100, dtype=torch.long)
    mask = torch.zeros(len(batch), n, dtype=torch.long)
    for i, b in enumerate(batch):
        L = len(b["input_ids"])
        ids[i, :L] = b["input_ids"]
        labels[i, :L] = b["labels"]
        mask[i, :L] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}
