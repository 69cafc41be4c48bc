import argparse

import torch
from torch.utils.data import DataLoader
from transformers import BertTokenizerFast, get_linear_schedule_with_warmup

from data import MaskedSentenceDataset, collate
from model import TokenContrastivePretraining


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="bert-base-uncased")
    parser.add_argument("--train_path", default="./corpus/wiki_sentences.txt")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--total_steps", type=int, default=150000)
    parser.add_argument("--warmup_steps", type=int, default=10000)
    parser.add_argument("--temperature", type=float, default=0.01)
    parser.add_argument("--save_path", default="./tacl-bert")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = BertTokenizerFast.from_pretrained(args.model_name)
    dataset = MaskedSentenceDataset(args.train_path, tokenizer)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                        collate_fn=lambda b: collate(b, tokenizer.pad_token_id), num_workers=4)

    model = TokenContrastivePretraining(args.model_name, args.temperature).to(device)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, args.total_steps)

    step = 0
    model.train()
    while step < args.total_steps:
        for batch in loader:
            truth, masked, segs, attn, labels, cl_mask = (t.to(device) for t in batch)
            mlm_loss, cl_loss, cl_acc = model(truth, masked, segs, attn, labels, cl_mask)
            loss = mlm_loss + cl_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 500 == 0:
                print(f"step {step}: mlm {mlm_loss.item():.3f} cl {cl_loss.item():.3f} "
                      f"cl_acc {cl_acc.item():.3f}")
            if step % 10000 == 0:
                model.save_student(f"{args.save_path}/step_{step}")
            if step >= args.total_steps:
                break
    model.save_student(args.save_path)


if __name__ == "__main__":
    main()
