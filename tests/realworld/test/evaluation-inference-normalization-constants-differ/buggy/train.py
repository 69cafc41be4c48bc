import torch
from torchvision import transforms
from torch.utils.data import DataLoader
from ram.models import ram_plus
from ram.data import TagDataset

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def build_train_transform(image_size):
    return transforms.Compose([
        transforms.RandomResizedCrop(image_size, scale=(0.5, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(CLIP_MEAN, CLIP_STD),
    ])


def finetune(cfg):
    model = ram_plus(pretrained=cfg["checkpoint"], image_size=cfg["image_size"], vit="swin_l")
    ds = TagDataset(cfg["ann_file"], transform=build_train_transform(cfg["image_size"]))
    loader = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=8)
    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=cfg["lr"], weight_decay=0.05)
    model.cuda().train()
    for epoch in range(cfg["epochs"]):
        for image, tags, text in loader:
            loss_tag, loss_dis, loss_align = model(image.cuda(), tags.cuda(), text)
            loss = loss_tag + loss_dis + loss_align
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.save(model.state_dict(), f"ram_plus_ft_{epoch}.pth")
