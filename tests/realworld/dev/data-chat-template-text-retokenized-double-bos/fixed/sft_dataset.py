"""Chat SFT dataset: render conversations with the model's chat template, mask the prompt."""
import torch
from torch.utils.data import Dataset

IGNORE_INDEX = -100


class ChatSFTDataset(Dataset):
    def __init__(self, records, tokenizer, max_length=2048):
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.examples = [self._encode(r["messages"]) for r in records]
        self.examples = [e for e in self.examples if e is not None]

    def _render(self, messages):
        prompt = self.tokenizer.apply_chat_template(
            messages[:-1], tokenize=False, add_generation_prompt=True
        )
        full = self.tokenizer.apply_chat_template(messages, tokenize=False)
        return prompt, full

    def _encode(self, messages):
        if messages[-1]["role"] != "assistant":
            return None
        prompt, full = self._render(messages)
        prompt_ids = self.tokenizer(prompt, truncation=True, max_length=self.max_length,
                                    add_special_tokens=False)["input_ids"]
        full_ids = self.tokenizer(full, truncation=True, max_length=self.max_length,
                                    add_special_tokens=False)["input_ids"]
        if len(prompt_ids) >= len(full_ids):
            return None
        labels = [IGNORE_INDEX] * len(prompt_ids) + full_ids[len(prompt_ids):]
        return {"input_ids": full_ids, "labels": labels}

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        return self.examples[idx]


def collate(batch, pad_id):
    longest = max(len(b["input_ids"]) for b in batch)
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), longest), IGNORE_INDEX, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), longest), dtype=torch.long)
    for i, b in enumerate(batch):
        n = len(b["input_ids"])
        input_ids[i, :n] = torch.tensor(b["input_ids"])
        labels[i, :n] = torch.tensor(b["labels"])
        attention_mask[i, :n] = 1
    return {"input_ids": input_ids, "labels": labels, "attention_mask": attention_mask}
