import torch
import segmentation_models_pytorch as smp
from torch.utils.data import DataLoader

from data import TileDataset


def run(cfg):
    ds = TileDataset(cfg["train_npz"])
    loader = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=4)
    seg = smp.Unet("resnet34", in_channels=2, classes=3).cuda()
    opt = torch.optim.Adam(seg.parameters(), lr=cfg["lr"])
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            loss = loss_fn(seg(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    run({"train_npz": "tissuenet_train.npz", "batch_size": 16, "lr": 1e-4, "epochs": 20})
