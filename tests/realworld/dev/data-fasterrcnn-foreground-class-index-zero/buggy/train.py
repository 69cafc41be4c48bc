import math
import random

import torch
from torch.utils.data import DataLoader
from torchvision.transforms import functional as F

from dataset import CLASSES, RoadDamageDataset, collate_fn
from model import build_model


def random_hflip(img, target, p=0.5):
    if random.random() < p:
        img = F.hflip(img)
        w = img.shape[-1]
        boxes = target["boxes"].clone()
        boxes[:, [0, 2]] = w - target["boxes"][:, [2, 0]]
        target["boxes"] = boxes
    return img, target


def train_one_epoch(model, optimizer, loader, device, epoch, print_freq=20):
    model.train()
    for i, (images, targets) in enumerate(loader):
        images = [img.to(device) for img in images]
        targets = [{k: v.to(device) if torch.is_tensor(v) else v for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())
        if not math.isfinite(losses.item()):
            raise RuntimeError(f"loss is {losses.item()}, stopping training")
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
        if i % print_freq == 0:
            parts = " ".join(f"{k}: {v.item():.4f}" for k, v in loss_dict.items())
            print(f"epoch {epoch} [{i}/{len(loader)}] loss {losses.item():.4f} {parts}")


@torch.no_grad()
def detect(model, images, device, score_thresh=0.5):
    model.eval()
    outputs = model([img.to(device) for img in images])
    return [{k: v[o["scores"] > score_thresh].cpu() for k, v in o.items()} for o in outputs]


def main(root="./road_damage", epochs=12):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_ds = RoadDamageDataset(root, "train", transforms=random_hflip)
    val_ds = RoadDamageDataset(root, "val")
    train_loader = DataLoader(train_ds, batch_size=4, shuffle=True, num_workers=4, collate_fn=collate_fn)
    val_loader = DataLoader(val_ds, batch_size=4, shuffle=False, num_workers=4, collate_fn=collate_fn)

    num_classes = len(CLASSES) + 1
    model = build_model(num_classes).to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.005, momentum=0.9, weight_decay=5e-4)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.1)

    for epoch in range(epochs):
        train_one_epoch(model, optimizer, train_loader, device, epoch)
        lr_scheduler.step()
        images, _ = next(iter(val_loader))
        for det in detect(model, images, device):
            names = [CLASSES[l - 1] for l in det["labels"].tolist()]
            print(f"  {len(names)} detections: {names}")
    torch.save(model.state_dict(), "fasterrcnn_road_damage.pth")


if __name__ == "__main__":
    main()
