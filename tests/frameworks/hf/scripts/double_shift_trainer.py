"""Bug: the collator shifts labels by one (x = seq[:-1], y = seq[1:]) and GPT2LMHeadModel shifts them again.

The model then learns to predict the token two positions ahead. Modelled on public reports: transformers
issue #32944 / PR #44642 (users pre-shifting causal-LM labels), InternLM issue #318 (dataset shifts, model
shifts again).
"""

import random

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
random.seed(0)
VOCAB, PAD = 100, 0


class Sentences(torch.utils.data.Dataset):
    def __init__(self, n):
        self.rows = []
        for _ in range(n):
            start, length = random.randint(1, 50), random.randint(8, 24)
            self.rows.append([1 + (start + 3 * i) % (VOCAB - 1) for i in range(length)])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def collate(rows):
    longest = max(len(r) for r in rows) - 1
    ids = torch.full((len(rows), longest), PAD, dtype=torch.long)
    labels = torch.full((len(rows), longest), -100, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, r in enumerate(rows):
        seq = torch.tensor(r)
        ids[i, : len(r) - 1] = seq[:-1]
        labels[i, : len(r) - 1] = seq[1:]  # next-token targets, as for a hand-written loss
        mask[i, : len(r) - 1] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64, pad_token_id=PAD)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-hf-shift", per_device_train_batch_size=8, max_steps=20,
                         learning_rate=3e-3, logging_steps=10, save_strategy="no", report_to=[], use_cpu=True,
                         disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=Sentences(256), data_collator=collate)
trainer.train()
