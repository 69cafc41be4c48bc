import math
from dataclasses import dataclass

import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, get_cosine_schedule_with_warmup

from data import build_loader


@dataclass
class Args:
    model_name: str = "Qwen/Qwen2.5-0.5B"
    lr: float = 2e-5
    epochs: int = 3
    batch_size: int = 8
    grad_accum: int = 8
    warmup_ratio: float = 0.03


def main(args=Args()):
    accelerator = Accelerator(gradient_accumulation_steps=args.grad_accum)
    policy = AutoModelForCausalLM.from_pretrained(args.model_name)
    loader = build_loader(args.batch_size)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=args.lr, weight_decay=0.0)
    policy, optimizer, loader = accelerator.prepare(policy, optimizer, loader)
    updates_per_epoch = math.ceil(len(loader) / args.grad_accum)
    total_updates = updates_per_epoch * args.epochs
    lr_scheduler = get_cosine_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_updates), total_updates)

    for epoch in range(args.epochs):
        policy.train()
        for step, batch in enumerate(loader):
            with accelerator.accumulate(policy):
                loss = policy(**batch).loss
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(policy.parameters(), 1.0)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
            if step % 50 == 0:
                accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f} lr {lr_scheduler.get_last_lr()[0]:.2e}")


if __name__ == "__main__":
    main()
