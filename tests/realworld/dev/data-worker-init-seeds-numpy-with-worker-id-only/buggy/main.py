import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader

from datasets_ctdet import CTDetDataset
from model import create_model
from losses import CtdetLoss


def get_affine_params(c, s, rot, out_size):
    return cv2.getRotationMatrix2D((float(c[0]), float(c[1])), rot, out_size / s)


class Opt:
    data_dir = "data/coco"
    batch_size = 32
    num_workers = 4
    lr = 1.25e-4
    num_epochs = 140
    seed = 317


def worker_init_fn(worker_id):
    np.random.seed(worker_id)


def main(opt):
    torch.manual_seed(opt.seed)
    train_loader = DataLoader(
        CTDetDataset(opt.data_dir, "train"),
        batch_size=opt.batch_size,
        shuffle=True,
        num_workers=opt.num_workers,
        pin_memory=True,
        drop_last=True,
        worker_init_fn=worker_init_fn,
    )
    model = create_model("dla_34", heads={"hm": 80, "wh": 2, "reg": 2}).cuda()
    optimizer = torch.optim.Adam(model.parameters(), opt.lr)
    crit = CtdetLoss()
    for epoch in range(1, opt.num_epochs + 1):
        model.train()
        for batch in train_loader:
            batch = {k: v.cuda(non_blocking=True) for k, v in batch.items()}
            loss, _ = crit(model(batch["input"]), batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main(Opt())
