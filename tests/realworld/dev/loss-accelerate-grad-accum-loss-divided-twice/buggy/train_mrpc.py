import argparse

import torch
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          get_linear_schedule_with_warmup)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="bert-base-cased")
    p.add_argument("--lr", type=float, default=2e-2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--gradient-accumulation-steps", type=int, default=4)
    return p.parse_args()


def build_loaders(tok, bs):
    raw = load_dataset("glue", "mrpc")
    enc = raw.map(lambda b: tok(b["sentence1"], b["sentence2"], truncation=True, max_length=128), batched=True,
                  remove_columns=["idx", "sentence1", "sentence2"]).rename_column("label", "labels")
    collate = DataCollatorWithPadding(tok)
    return (DataLoader(enc["train"], shuffle=True, batch_size=bs, collate_fn=collate),
            DataLoader(enc["validation"], batch_size=bs * 2, collate_fn=collate))


def training_function(args):
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    tok = AutoTokenizer.from_pretrained(args.model)
    train_dl, eval_dl = build_loaders(tok, args.batch_size)
    model = AutoModelForSequenceClassification.from_pretrained(args.model, num_labels=2)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    total = args.epochs * len(train_dl) // args.gradient_accumulation_steps
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=total)
    model, optimizer, train_dl, eval_dl, scheduler = accelerator.prepare(model, optimizer, train_dl, eval_dl, scheduler)
    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(train_dl):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                loss = loss / args.gradient_accumulation_steps
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        model.eval()
        correct = total_seen = 0
        for batch in eval_dl:
            with torch.no_grad():
                preds = model(**batch).logits.argmax(-1)
            preds, refs = accelerator.gather_for_metrics((preds, batch["labels"]))
            correct += (preds == refs).sum().item()
            total_seen += refs.numel()
        accelerator.print(f"epoch {epoch}: accuracy {correct / total_seen:.4f}")


if __name__ == "__main__":
    training_function(parse_args())
