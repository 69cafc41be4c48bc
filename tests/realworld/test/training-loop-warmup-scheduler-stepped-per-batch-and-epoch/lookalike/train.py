import argparse

import torch
from torch.nn import NLLLoss
from torch.optim import Adam
from torch.optim.lr_scheduler import LambdaLR
from tqdm import tqdm

from data import build_caption_loaders
from models.transformer import MemoryAugmentedEncoder, MeshedDecoder, Transformer


def lambda_lr(e):
    if e < args.warmup_epochs:
        return (e + 1) / args.warmup_epochs
    return 0.8 ** (e - args.warmup_epochs)


def train_xe(model, dataloader, optim, scheduler, loss_fn, text_field):
    model.train()
    running_loss = .0
    with tqdm(desc="Epoch %d - train" % e, unit="it", total=len(dataloader)) as pbar:
        for it, (detections, captions) in enumerate(dataloader):
            detections, captions = detections.to(device), captions.to(device)
            out = model(detections, captions)
            optim.zero_grad()
            captions_gt = captions[:, 1:].contiguous()
            out = out[:, :-1].contiguous()
            loss = loss_fn(out.view(-1, len(text_field.vocab)), captions_gt.view(-1))
            loss.backward()
            optim.step()
            this_loss = loss.item()
            running_loss += this_loss
            pbar.set_postfix(loss=running_loss / (it + 1))
            pbar.update()

    loss = running_loss / len(dataloader)
    return loss


if __name__ == "__main__":
    device = torch.device("cuda")
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=50)
    parser.add_argument("--m", type=int, default=40)
    parser.add_argument("--warmup_epochs", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()

    train_loader, val_loader, text_field = build_caption_loaders(args.batch_size)
    encoder = MemoryAugmentedEncoder(3, 0, attention_module_kwargs={"m": args.m})
    decoder = MeshedDecoder(len(text_field.vocab), 54, 3, text_field.vocab.stoi["<pad>"])
    model = Transformer(text_field.vocab.stoi["<bos>"], encoder, decoder).to(device)

    optim = Adam(model.parameters(), lr=5e-4, betas=(0.9, 0.98))
    scheduler = LambdaLR(optim, lambda_lr)
    loss_fn = NLLLoss(ignore_index=text_field.vocab.stoi["<pad>"])

    for e in range(args.epochs):
        train_loss = train_xe(model, train_loader, optim, scheduler, loss_fn, text_field)
        scheduler.step()
        print(f"epoch {e} train loss {train_loss:.4f} lr {optim.param_groups[0]['lr']:.2e}")
