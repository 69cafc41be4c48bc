import argparse
import glob

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from model import RasterVAE
from objectives import KLObjective, VAEObjective

CFG = {
    "in_channels": 4,
    "latent_channels": 16,
    "lr": 1e-4,
    "batch_size": 64,
    "epochs": 40,
    "reconstruction_weight": 1.0,
    "kl_weight": 1e-3,
    "channel_weights": [1.0, 5.0, 5.0, 2.0],
}


class RasterCache(Dataset):
    def __init__(self, pattern):
        self.files = sorted(glob.glob(pattern))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        raster = np.load(self.files[idx]).astype(np.float32)  # (C, 64, 64), values in {0, 1}
        return {"raster": torch.from_numpy(raster)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", default="cache/rasters/*.npy")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(RasterCache(args.cache), batch_size=CFG["batch_size"],
                        shuffle=True, num_workers=8, drop_last=True)
    model = RasterVAE(CFG["in_channels"], CFG["latent_channels"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    objectives = [
        VAEObjective(CFG["reconstruction_weight"], CFG["channel_weights"]),
        KLObjective(CFG["kl_weight"]),
    ]

    for epoch in range(CFG["epochs"]):
        model.train()
        running = 0.0
        for batch in loader:
            targets = {k: v.to(device) for k, v in batch.items()}
            predictions = model(targets["raster"])
            recon = objectives[0](predictions, targets)
            kl = objectives[1](predictions)
            loss = recon + kl
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: loss {running / len(loader):.4f} (recon {recon.item():.4f}, kl {kl.item():.4f})")
        torch.save(model.state_dict(), f"raster_vae_{epoch:03d}.pt")


if __name__ == "__main__":
    main()
