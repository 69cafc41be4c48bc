import torch
from torch.utils.data import DataLoader

from dataset import ImageBboxDataset
from model import LayoutGenerator


def collate(batch):
    return {
        "image": torch.stack([b["image"] for b in batch]),
        "image_bbox": [b["image_bbox"] for b in batch],
        "labels": [b["labels"] for b in batch],
    }


def main(cfg):
    ds = ImageBboxDataset(cfg["root"], cfg["ann"], resolution=cfg["res"], mirror=True)
    loader = DataLoader(ds, batch_size=cfg["batch"], shuffle=True, num_workers=8, collate_fn=collate, drop_last=True)
    gen = LayoutGenerator().cuda()
    opt = torch.optim.Adam(gen.parameters(), lr=cfg["lr"], betas=(0.0, 0.99))
    for it, batch in enumerate(loader):
        loss = gen.reconstruction_loss(batch["image"].cuda(), [b.cuda() for b in batch["image_bbox"]])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 100 == 0:
            print(it, loss.item())


if __name__ == "__main__":
    main({"root": "data/clevr", "ann": "data/clevr/boxes.json", "res": 256, "batch": 16, "lr": 2e-3})
