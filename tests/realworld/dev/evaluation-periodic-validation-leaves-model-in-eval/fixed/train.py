import argparse
import torch
from torch import nn
from data import build_loaders
from models import HRED
from utils import save_checkpoint


def evaluate(model, loader, criterion, device):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for context, response, image_feats in loader:
            logits = model(context.to(device), image_feats.to(device), response[:, :-1].to(device))
            loss = criterion(logits.reshape(-1, logits.size(-1)), response[:, 1:].reshape(-1).to(device))
            total += loss.item() * context.size(0)
            count += context.size(0)
    return total / count


def train(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader, val_loader, vocab = build_loaders(args.data_dir, args.batch_size)
    model = HRED(len(vocab), args.emb_dim, args.hid_dim, dropout=args.dropout).to(device)
    criterion = nn.CrossEntropyLoss(ignore_index=vocab.pad_id)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model.train()
    step, best = 0, float("inf")
    for epoch in range(args.epochs):
        for context, response, image_feats in train_loader:
            logits = model(context.to(device), image_feats.to(device), response[:, :-1].to(device))
            loss = criterion(logits.reshape(-1, logits.size(-1)), response[:, 1:].reshape(-1).to(device))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            step += 1
            if step % args.val_every == 0:
                val_loss = evaluate(model, val_loader, criterion, device)
                print(f"step {step} train {loss.item():.3f} val {val_loss:.3f}")
                if val_loss < best:
                    best = val_loss
                    save_checkpoint(model, optimizer, args.out_dir, step)
                model.train()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--data_dir", default="data/mmd")
    p.add_argument("--out_dir", default="runs/hred")
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--emb_dim", type=int, default=512)
    p.add_argument("--hid_dim", type=int, default=512)
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--lr", type=float, default=4e-4)
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--val_every", type=int, default=500)
    train(p.parse_args())
