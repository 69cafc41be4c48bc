import argparse
import os

import numpy as np
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm

from data import TalkingFaceDataset, load_clips
from model import AudioToFace


def trainer(args, train_loader, dev_loader, model, optimizer, criterion, epochs=100):
    save_path = os.path.join(args.save_path)
    os.makedirs(save_path, exist_ok=True)
    for e in range(epochs + 1):
        loss_log = []
        model.train()
        pbar = tqdm(enumerate(train_loader, start=1), total=len(train_loader))
        for i, (audio, vertice, template) in pbar:
            audio, vertice, template = audio.to(args.device), vertice.to(args.device), template.to(args.device)
            loss = model(audio, template, vertice, criterion)
            loss = loss / args.gradient_accumulation_steps
            if (i - 1) % args.gradient_accumulation_steps == 0:
                optimizer.zero_grad()
            loss.backward()
            loss_log.append(loss.item())
            if i % args.gradient_accumulation_steps == 0:
                optimizer.step()
            pbar.set_description(f"(Epoch {e + 1}, iteration {i}) TRAIN LOSS:{np.mean(loss_log):.7f}")

        valid_loss_log = []
        model.eval()
        with torch.no_grad():
            for audio, vertice, template in dev_loader:
                audio, vertice, template = audio.to(args.device), vertice.to(args.device), template.to(args.device)
                valid_loss_log.append(model(audio, template, vertice, criterion).item())
        print(f"epoch: {e + 1}, current loss:{np.mean(valid_loss_log):.7f}")
        if (e > 0 and e % 25 == 0) or e == epochs:
            torch.save(model.state_dict(), os.path.join(save_path, f"{e}_model.pth"))
    return model


def main():
    parser = argparse.ArgumentParser(description="Audio-driven 3D face animation")
    parser.add_argument("--train_file", type=str, default="data/train.npz")
    parser.add_argument("--val_file", type=str, default="data/val.npz")
    parser.add_argument("--vertice_dim", type=int, default=5023 * 3)
    parser.add_argument("--feature_dim", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=8)
    parser.add_argument("--max_epoch", type=int, default=100)
    parser.add_argument("--device", type=str, default="cuda")
    parser.add_argument("--save_path", type=str, default="save")
    args = parser.parse_args()

    train_clips, template = load_clips(args.train_file)
    val_clips, _ = load_clips(args.val_file)
    # clips have different lengths, so the loader runs one clip per step and accumulation builds the batch
    train_loader = DataLoader(TalkingFaceDataset(train_clips, template), batch_size=1, shuffle=True)
    dev_loader = DataLoader(TalkingFaceDataset(val_clips, template), batch_size=1)

    model = AudioToFace(vertice_dim=args.vertice_dim, feature_dim=args.feature_dim).to(args.device)
    optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=args.lr)
    criterion = torch.nn.MSELoss()
    trainer(args, train_loader, dev_loader, model, optimizer, criterion, epochs=args.max_epoch)


if __name__ == "__main__":
    main()
