import torch
from torch.utils.data import DataLoader, random_split
from torchvision import datasets, transforms

NORM = transforms.Normalize((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))


def get_dataloaders(config):
    augment = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        NORM,
    ])
    plain = transforms.Compose([transforms.ToTensor(), NORM])

    full = datasets.CIFAR100(config["root"], train=True, download=True, transform=augment)
    n_val = int(config["val_fraction"] * len(full))
    train_dataset, val_dataset = random_split(
        full, [len(full) - n_val, n_val], generator=torch.Generator().manual_seed(config["seed"])
    )
    val_dataset.dataset.transform = plain

    train_loader = DataLoader(train_dataset, batch_size=config["batch_size"], shuffle=True, num_workers=4)
    val_loader = DataLoader(val_dataset, batch_size=512, shuffle=False, num_workers=4)
    return train_loader, val_loader
