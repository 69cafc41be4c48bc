from dataclasses import dataclass

import torchvision.transforms as T


@dataclass
class PretrainConfig:
    data_root: str = "/data/brain_mra"
    img_size: int = 128
    batch_size: int = 16
    lr: float = 2e-4
    epochs: int = 200
    num_workers: int = 8


def build_transforms(cfg):
    train_transform = T.Compose([
        T.RandomResizedCrop(cfg.img_size, scale=(0.6, 1.0)),
        T.RandomHorizontalFlip(),
        T.RandomRotation(15),
        T.ToTensor(),
        T.Normalize([0.5], [0.5]),
    ])
    val_transform = T.Compose([T.Resize(cfg.img_size), T.CenterCrop(cfg.img_size), T.ToTensor(), T.Normalize([0.5], [0.5])])
    return train_transform, val_transform
