import argparse
import logging

import numpy as np
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

from data_processing import load_and_cache_examples, make_collate

logging.basicConfig(level=logging.INFO)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data_dir", default="data/msmarco_pairs")
    p.add_argument("--model_name_or_path", default="bert-base-uncased")
    p.add_argument("--max_seq_length", type=int, default=256)
    p.add_argument("--train_batch_size", type=int, default=32)
    p.add_argument("--eval_batch_size", type=int, default=128)
    p.add_argument("--learning_rate", type=float, default=3e-5)
    p.add_argument("--num_train_epochs", type=int, default=2)
    p.add_argument("--warmup_ratio", type=float, default=0.1)
    p.add_argument("--overwrite_cache", action="store_true")
    return p.parse_args()


@torch.no_grad()
def evaluate(model, dataset, args, device, collate):
    model.eval()
    correct, total = 0, 0
    for input_ids, attn, tt, labels in DataLoader(dataset, batch_size=args.eval_batch_size, collate_fn=collate):
        logits = model(input_ids=input_ids.to(device), attention_mask=attn.to(device),
                       token_type_ids=tt.to(device)).logits
        correct += (logits.argmax(-1).cpu() == labels).sum().item()
        total += labels.numel()
    return correct / total


def main():
    args = parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name_or_path, num_labels=2).to(device)
    train_set = load_and_cache_examples(args, tokenizer, "train")
    dev_set = load_and_cache_examples(args, tokenizer, "dev")
    collate = make_collate(tokenizer, args.max_seq_length)
    loader = DataLoader(train_set, batch_size=args.train_batch_size, shuffle=True, collate_fn=collate)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    total_steps = len(loader) * args.num_train_epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_steps), total_steps)
    for epoch in range(args.num_train_epochs):
        model.train()
        for step, (input_ids, attn, tt, labels) in enumerate(loader):
            out = model(input_ids=input_ids.to(device), attention_mask=attn.to(device),
                        token_type_ids=tt.to(device), labels=labels.to(device))
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            if step % 500 == 0:
                logging.info("epoch %d step %d loss %.4f", epoch, step, out.loss.item())
        logging.info("epoch %d dev accuracy %.4f (max_seq_length=%d)", epoch,
                     evaluate(model, dev_set, args, device, collate), args.max_seq_length)
    model.save_pretrained(f"out/reranker_len{args.max_seq_length}")


if __name__ == "__main__":
    main()
