"""A tiny GPT-2 fine-tune with the Hugging Face Trainer that times its own optimizer steps (for bench_overhead_hf.py).

argv: STEPS WARMUP MODE, MODE one of ``plain`` (as is) or ``callback`` (with mlsleuth's MlsleuthCallback).
Writes ``{"per_step_s": median wall seconds per step after WARMUP, "cpu_per_step_s": the same in this process's CPU
time}`` to the file named by $BENCH_TIMING (CPU time is steadier on a shared machine: waiting for a core does not count).
"""

import json
import os
import random
import statistics
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

STEPS, WARMUP, MODE = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
torch.manual_seed(0)
random.seed(0)
VOCAB, PAD = 100, 0


class Sentences(torch.utils.data.Dataset):
    def __init__(self, n):
        self.rows = []
        for _ in range(n):
            start, length = random.randint(1, 50), random.randint(12, 32)
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
    return {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}


class StepTimer(TrainerCallback):
    def __init__(self):
        self.stamps = []
        self.cpu = []

    def on_step_end(self, args, state, control, **kwargs):
        self.stamps.append(time.perf_counter())
        self.cpu.append(time.process_time())

    def on_train_end(self, args, state, control, **kwargs):
        gaps = [b - a for a, b in zip(self.stamps[WARMUP:], self.stamps[WARMUP + 1:])]
        cpu = [b - a for a, b in zip(self.cpu[WARMUP:], self.cpu[WARMUP + 1:])]
        with open(os.environ["BENCH_TIMING"], "w", encoding="utf-8") as fh:
            json.dump({"per_step_s": statistics.median(gaps), "cpu_per_step_s": statistics.median(cpu), "steps": len(self.stamps)}, fh)


callbacks = [StepTimer()]
if MODE == "callback":
    from mlsleuth.integrations.hf import MlsleuthCallback

    callbacks.insert(0, MlsleuthCallback(print_report=False))
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=VOCAB, n_positions=64, pad_token_id=PAD)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="/tmp/mlsleuth-bench-hf", per_device_train_batch_size=8, max_steps=STEPS,
                         learning_rate=1e-3, logging_steps=10_000, save_strategy="no", report_to=[], use_cpu=True,
                         disable_tqdm=True)
Trainer(model=model, args=args, train_dataset=Sentences(8 * STEPS), data_collator=collate, callbacks=callbacks).train()
