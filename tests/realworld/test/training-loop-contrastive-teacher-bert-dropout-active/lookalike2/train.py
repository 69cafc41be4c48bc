import argparse

import torch
from torch.utils.data import DataLoader
from transformers import BertTokenizerFast, get_linear_schedule_with_warmup

from model import UnsupSimCSE


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="bert-base-uncased")
    parser.add_argument("--train_path", default="./corpus/wiki1m.txt")
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = BertTokenizerFast.from_pretrained(args.model_name)
    with open(args.train_path, encoding="utf8") as f:
        sentences = [line.strip() for line in f if line.strip()]

    def collate(batch):
        return tokenizer(batch, padding=True, truncation=True, max_length=32, return_tensors="pt")

    loader = DataLoader(sentences, batch_size=args.batch_size, shuffle=True, collate_fn=collate)
    model = UnsupSimCSE(args.model_name).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, args.epochs * len(loader))

    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(loader):
            loss = model(batch["input_ids"].to(device), batch["attention_mask"].to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            if step % 250 == 0:
                print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")
    model.encoder.save_pretrained("./simcse-bert")


if __name__ == "__main__":
    main()
