import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader

from data import MOViClips
from metrics import video_scores
from model import SlotVideoModel


@torch.no_grad()
def evaluate(model, loader, num_gt_ids, num_slots):
    model.eval()
    mdices, aris = [], []
    for video, seg in loader:
        _, masks = model(video)
        pred_ids = masks.argmax(dim=2)
        for b in range(video.shape[0]):
            mdice, ari = video_scores(seg[b], pred_ids[b], num_gt_ids, num_slots)
            mdices.append(mdice)
            aris.append(ari)
    return float(np.nanmean(mdices)), float(np.nanmean(aris))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--root", default="data/movi_a")
    parser.add_argument("--num_slots", type=int, default=7)
    args = parser.parse_args()

    dataset = MOViClips(args.root, split="validation", clip_len=6)
    loader = DataLoader(dataset, batch_size=8, shuffle=False, num_workers=4)
    model = SlotVideoModel(num_slots=args.num_slots)
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu"))
    mdice, ari = evaluate(model, loader, dataset.max_objects + 1, args.num_slots)
    print(f"mDice {mdice * 100:.2f}  FG-ARI {ari * 100:.2f}")


if __name__ == "__main__":
    main()
