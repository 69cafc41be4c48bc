import torch
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def build_datasets(root):
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(CIFAR_MEAN, CIFAR_STD),
    ])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(CIFAR_MEAN, CIFAR_STD)])
    train_set = datasets.CIFAR10(root, train=True, transform=train_tf, download=True)
    test_set = datasets.CIFAR10(root, train=False, transform=test_tf, download=True)
    return train_set, test_set


def shard_for_rank(dataset, rank, world_size):
    """Every rank keeps a disjoint, strided slice of the training set."""
    return Subset(dataset, list(range(rank, len(dataset), world_size)))


def build_train_loader(train_shard, batch_size, num_workers=4):
    return DataLoader(
        train_shard,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        pin_memory=torch.cuda.is_available(),
        drop_last=True,
    )


def build_test_loader(test_set, batch_size, num_workers=4):
    return DataLoader(test_set, batch_size=batch_size, shuffle=False,
                      num_workers=num_workers, pin_memory=torch.cuda.is_available())
