"""A clean tiny causal-LM fine-tune with the Hugging Face Trainer (CPU, a few steps, no saving).

Right-padded batches, labels copied from input_ids with the pads set to -100; the model shifts internally.
"""

import random

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
random.seed(0)
VOCAB, PAD = 100, 0


class Sentences(torch.utils.data.Dataset):
    """Token sequences of varying length from a tiny repeating grammar (ids 1..VOCAB-1)."""

    def __init__(self, n):
        self.rows = []
        for _ in range(n):
            start, length = random.randint(1, 50), random.randint(6, 24)
            self.rows.append([1 + (start + 3 * i) % (VOCAB - 1) for i in range(length)])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return {"input_ids": self.rows[i]}


def collate(examples):
    longest = max(len(e["input_ids"]) for e in examples)
    ids = torch.full((len(examples), longest), PAD, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, e in enumerate(examples):
        ids[row, : len(e["input_ids"])] = torch.tensor(e["input_ids"])
        mask[row, : len(e["input_ids"])] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64, pad_token_id=PAD)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-hf-clean", per_device_train_batch_size=8, max_steps=30,
                         learning_rate=3e-3, logging_steps=10, save_strategy="no", report_to=[], use_cpu=True,
                         dataloader_num_workers=0, disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=Sentences(256), data_collator=collate)
trainer.train()
