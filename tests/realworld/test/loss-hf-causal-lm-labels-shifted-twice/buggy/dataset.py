import torch
from torch.utils.data import Dataset


class InstructionDataset(Dataset):
    def __init__(self, records, tokenizer, max_len=512):
        self.records = records
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        rec = self.records[i]
        text = f"### Instruction:\n{rec['instruction']}\n### Response:\n{rec['output']}{self.tok.eos_token}"
        ids = self.tok(text, truncation=True, max_length=self.max_len)["input_ids"]
        input_ids = torch.tensor(ids[:-1])
        labels = torch.tensor(ids[1:])
        return {"input_ids": input_ids, "labels": labels}


def collate(batch, pad_id):
    n = max(len(b["input_ids"]) for b in batch)
    input_ids = torch.full((len(batch), n), pad_id)
    labels = torch.full((len(batch), n), -100)
    attn = torch.zeros((len(batch), n), dtype=torch.long)
    for j, b in enumerate(batch):
        k = len(b["input_ids"])
        input_ids[j, :k] = b["input_ids"]
        labels[j, :k] = b["labels"]
        attn[j, :k] = 1
    return {"input_ids": input_ids, "labels": labels, "attention_mask": attn}
