"""Supervised fine-tuning of Llama-3-8B-Instruct on in-house chat logs with accelerate."""
import json
from functools import partial

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from sft_dataset import ChatSFTDataset, collate

MODEL = "meta-llama/Meta-Llama-3-8B-Instruct"
TRAIN_FILE = "data/support_chats.jsonl"
EPOCHS = 2
LR = 1e-5
BATCH = 4
GRAD_ACCUM = 8


def load_records(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh]


def main():
    accelerator = Accelerator(gradient_accumulation_steps=GRAD_ACCUM, mixed_precision="bf16")
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    tokenizer.pad_token = "<|finetune_right_pad_id|>" if "<|finetune_right_pad_id|>" in tokenizer.get_vocab() else tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(MODEL, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()

    dataset = ChatSFTDataset(load_records(TRAIN_FILE), tokenizer, max_length=4096)
    loader = DataLoader(dataset, batch_size=BATCH, shuffle=True,
                        collate_fn=partial(collate, pad_id=tokenizer.pad_token_id))

    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.0)
    total_steps = EPOCHS * len(loader) // GRAD_ACCUM
    scheduler = get_cosine_schedule_with_warmup(optimizer, int(0.03 * total_steps), total_steps)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)

    model.train()
    for epoch in range(EPOCHS):
        for step, batch in enumerate(loader):
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if step % 100 == 0:
                accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")

    accelerator.wait_for_everyone()
    accelerator.unwrap_model(model).save_pretrained(
        "ckpt/llama3-support-sft", save_function=accelerator.save, is_main_process=accelerator.is_main_process
    )
    if accelerator.is_main_process:
        tokenizer.save_pretrained("ckpt/llama3-support-sft")


if __name__ == "__main__":
    main()
