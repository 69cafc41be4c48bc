import timm
import torch
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def build_model(name="vit_base_patch16_224.augreg_in21k_ft_in1k", num_classes=200):
    return timm.create_model(name, pretrained=True, num_classes=num_classes)


def build_transforms(train):
    if train:
        aug = [T.RandomResizedCrop(224), T.RandomHorizontalFlip()]
    else:
        aug = [T.Resize(248, interpolation=T.InterpolationMode.BICUBIC), T.CenterCrop(224)]
    return T.Compose(aug + [T.ToTensor(), T.Normalize(IMAGENET_MEAN, IMAGENET_STD)])


def loaders(root, bs=64):
    tr = ImageFolder(f"{root}/train", transform=build_transforms(True))
    va = ImageFolder(f"{root}/val", transform=build_transforms(False))
    return (DataLoader(tr, batch_size=bs, shuffle=True, num_workers=8),
            DataLoader(va, batch_size=bs, num_workers=8))


def finetune(root, epochs=10, lr=3e-5):
    model = build_model().cuda()
    train_dl, val_dl = loaders(root)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    for epoch in range(epochs):
        model.train()
        for x, y in train_dl:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model
