"""Bug: labels are a plain copy of the padded input_ids (pads never set to -100), so the loss trains on padding.

Modelled on public reports: OpenJarvis PR #521 (labels=input_ids with padding="max_length"), trl PR #1625
(ORPO copied input_ids to labels without masking pads).
"""

import random

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
random.seed(0)
VOCAB, PAD, MAX_LEN = 100, 0, 32


class Sentences(torch.utils.data.Dataset):
    def __init__(self, n):
        self.rows = []
        for _ in range(n):
            start, length = random.randint(1, 50), random.randint(4, 12)
            self.rows.append([1 + (start + 3 * i) % (VOCAB - 1) for i in range(length)])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = self.rows[i] + [PAD] * (MAX_LEN - len(self.rows[i]))  # padding="max_length"
        mask = [1] * len(self.rows[i]) + [0] * (MAX_LEN - len(self.rows[i]))
        return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask), "labels": torch.tensor(ids).clone()}


config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64, pad_token_id=PAD)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-hf-pad", per_device_train_batch_size=8, max_steps=20,
                         learning_rate=3e-3, logging_steps=10, save_strategy="no", report_to=[], use_cpu=True,
                         disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=Sentences(256))
trainer.train()
