import argparse
import math

import torch
import torch.nn.functional as F
from torch import optim
from torch.nn.utils import clip_grad_norm_

from data import load_dataset
from model import Encoder, Decoder, Seq2Seq


def parse_arguments():
    p = argparse.ArgumentParser(description="Hyperparams")
    p.add_argument("-epochs", type=int, default=100)
    p.add_argument("-batch_size", type=int, default=32)
    p.add_argument("-lr", type=float, default=0.0001)
    p.add_argument("-grad_clip", type=float, default=10.0)
    return p.parse_args()


def evaluate(model, val_iter, vocab_size, pad_idx, device):
    with torch.no_grad():
        model.eval()
        total_loss = 0
        for src, trg in val_iter:
            src, trg = src.to(device), trg.to(device)
            output = model(src, trg, teacher_forcing_ratio=0.0)
            loss = F.nll_loss(output[1:].view(-1, vocab_size),
                              trg[1:].contiguous().view(-1), ignore_index=pad_idx)
            total_loss += loss.item()
        return total_loss / len(val_iter)


def train(e, model, optimizer, train_iter, vocab_size, grad_clip, pad_idx, device):
    model.train()
    total_loss = 0
    for b, (src, trg) in enumerate(train_iter):
        src, trg = src.to(device), trg.to(device)
        optimizer.zero_grad()
        output = model(src, trg)
        loss = F.nll_loss(output[1:].view(-1, vocab_size),
                          trg[1:].contiguous().view(-1), ignore_index=pad_idx)
        loss.backward()
        clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        total_loss += loss.item()
        if b % 100 == 0 and b != 0:
            total_loss = total_loss / 100
            print(f"[{b}][loss:{total_loss:5.2f}][pp:{math.exp(total_loss):5.2f}]")
            total_loss = 0


def main():
    args = parse_arguments()
    hidden_size, embed_size = 512, 256
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_iter, val_iter, test_iter, src_vocab, trg_vocab = load_dataset(args.batch_size)
    de_size, en_size = len(src_vocab), len(trg_vocab)
    pad_idx = trg_vocab["<pad>"]

    encoder = Encoder(de_size, embed_size, hidden_size, n_layers=2, dropout=0.5)
    decoder = Decoder(embed_size, hidden_size, en_size, n_layers=1, dropout=0.5)
    seq2seq = Seq2Seq(encoder, decoder).to(device)
    optimizer = optim.Adam(seq2seq.parameters(), lr=args.lr)

    best_val_loss = None
    for e in range(1, args.epochs + 1):
        train(e, seq2seq, optimizer, train_iter, en_size, args.grad_clip, pad_idx, device)
        val_loss = evaluate(seq2seq, val_iter, en_size, pad_idx, device)
        print(f"[Epoch:{e}] val_loss:{val_loss:5.3f} | val_pp:{math.exp(val_loss):5.2f}")
        if not best_val_loss or val_loss < best_val_loss:
            torch.save(seq2seq.state_dict(), f".save/seq2seq_{e}.pt")
            best_val_loss = val_loss
    test_loss = evaluate(seq2seq, test_iter, en_size, pad_idx, device)
    print(f"[TEST] loss:{test_loss:5.2f}")


if __name__ == "__main__":
    main()
