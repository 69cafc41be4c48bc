import argparse

import torch

import data
from evaluation import i2t, t2i, encode_data
from model import VSE


def validate(opt, val_loader, model):
    model.val_start()
    try:
        with torch.no_grad():
            img_embs, cap_embs = encode_data(model, val_loader)
        r1, r5, r10 = i2t(img_embs, cap_embs)
        r1i, r5i, r10i = t2i(img_embs, cap_embs)
    finally:
        model.train_start()
    return r1 + r5 + r10 + r1i + r5i + r10i


def train(opt, train_loader, model, epoch, val_loader):
    model.train_start()
    for i, (images, captions, lengths, ids) in enumerate(train_loader):
        loss = model.train_emb(images, captions, lengths)
        if model.Eiters % opt.log_step == 0:
            print(f"Epoch [{epoch}][{i}/{len(train_loader)}] loss {loss:.4f}")
        if model.Eiters % opt.val_step == 0:
            validate(opt, val_loader, model)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", default="/data")
    parser.add_argument("--num_epochs", type=int, default=30)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--embed_size", type=int, default=1024)
    parser.add_argument("--word_dim", type=int, default=300)
    parser.add_argument("--vocab_size", type=int, default=11755)
    parser.add_argument("--margin", type=float, default=0.2)
    parser.add_argument("--grad_clip", type=float, default=2.0)
    parser.add_argument("--learning_rate", type=float, default=2e-4)
    parser.add_argument("--log_step", type=int, default=10)
    parser.add_argument("--val_step", type=int, default=500)
    parser.add_argument("--max_violation", action="store_true")
    parser.add_argument("--finetune", action="store_true")
    opt = parser.parse_args()

    train_loader, val_loader = data.get_loaders(opt.data_path, opt.batch_size)
    model = VSE(opt)
    best_rsum = 0
    for epoch in range(opt.num_epochs):
        train(opt, train_loader, model, epoch, val_loader)
        rsum = validate(opt, val_loader, model)
        best_rsum = max(rsum, best_rsum)
        print(f"epoch {epoch} rsum {rsum:.2f} best {best_rsum:.2f}")


if __name__ == "__main__":
    main()
