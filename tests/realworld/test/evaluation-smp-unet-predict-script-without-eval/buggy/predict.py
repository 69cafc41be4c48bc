import argparse
import os

import numpy as np
import torch
from PIL import Image

from build import build_unet, load_checkpoint

CFG = {"encoder": "se_resnet50", "classes": 1, "size": 512,
       "mean": (0.485, 0.456, 0.406), "std": (0.229, 0.224, 0.225)}


def preprocess(path):
    img = Image.open(path).convert("RGB").resize((CFG["size"], CFG["size"]), Image.BILINEAR)
    arr = (np.asarray(img, dtype=np.float32) / 255.0 - CFG["mean"]) / CFG["std"]
    return torch.from_numpy(arr.astype(np.float32)).permute(2, 0, 1)


def predict_folder(net, folder, out_dir, device, batch_size=4):
    names = sorted(f for f in os.listdir(folder) if f.lower().endswith((".png", ".jpg")))
    os.makedirs(out_dir, exist_ok=True)
    for i in range(0, len(names), batch_size):
        chunk = names[i:i + batch_size]
        x = torch.stack([preprocess(os.path.join(folder, n)) for n in chunk]).to(device)
        with torch.no_grad():
            prob = torch.sigmoid(net(x))
        for n, p in zip(chunk, prob.cpu().numpy()):
            Image.fromarray(((p[0] > 0.5) * 255).astype(np.uint8)).save(os.path.join(out_dir, n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--images", required=True)
    ap.add_argument("--out", default="pred_masks")
    args = ap.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = load_checkpoint(build_unet(CFG), args.ckpt, device)
    predict_folder(net, args.images, args.out, device)


if __name__ == "__main__":
    main()
