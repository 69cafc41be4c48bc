import argparse
import math

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from data import build_sft_dataset, collate


def kd_loss(student_logits, teacher_logits, labels, temperature=2.0, alpha=0.5):
    mask = labels.ne(-100)
    s = F.log_softmax(student_logits[mask] / temperature, dim=-1)
    t = F.softmax(teacher_logits[mask] / temperature, dim=-1)
    kl = F.kl_div(s, t, reduction="batchmean") * temperature ** 2
    ce = F.cross_entropy(student_logits.view(-1, student_logits.size(-1)), labels.view(-1), ignore_index=-100)
    return alpha * kl + (1 - alpha) * ce


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--teacher", default="Qwen/Qwen2.5-7B-Instruct")
    p.add_argument("--student", default="Qwen/Qwen2.5-0.5B-Instruct")
    p.add_argument("--per_device_batch_size", type=int, default=2)
    p.add_argument("--gradient_accumulation_steps", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--epochs", type=int, default=1)
    args = p.parse_args()

    tok = AutoTokenizer.from_pretrained(args.student)
    teacher = AutoModelForCausalLM.from_pretrained(args.teacher, torch_dtype=torch.bfloat16).cuda().eval()
    student = AutoModelForCausalLM.from_pretrained(args.student, torch_dtype=torch.bfloat16).cuda()
    loader = DataLoader(build_sft_dataset(tok), batch_size=args.per_device_batch_size, shuffle=True,
                        collate_fn=collate(tok))
    optimizer = torch.optim.AdamW(student.parameters(), lr=args.lr)
    total_updates = math.ceil(len(loader) / args.gradient_accumulation_steps) * args.epochs
    scheduler = get_cosine_schedule_with_warmup(optimizer, int(0.03 * total_updates), total_updates)

    student.train()
    update = 0
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            batch = {k: v.cuda() for k, v in batch.items()}
            with torch.no_grad():
                t_logits = teacher(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
            s_logits = student(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
            loss = kd_loss(s_logits.float(), t_logits.float(), batch["labels"])
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                update += 1
                if update % 10 == 0:
                    print(f"update {update} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")


if __name__ == "__main__":
    main()
