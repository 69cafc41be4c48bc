import numpy as np
from torch.utils.data import Dataset, Subset
from torchvision import datasets, transforms

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2471, 0.2435, 0.2616)


def weak_transform():
    return transforms.Compose([
        transforms.RandomHorizontalFlip(),
        transforms.RandomCrop(32, padding=4, padding_mode="reflect"),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])


def strong_transform():
    return transforms.Compose([
        transforms.RandomHorizontalFlip(),
        transforms.RandomCrop(32, padding=4, padding_mode="reflect"),
        transforms.RandAugment(num_ops=2, magnitude=10),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
        transforms.RandomErasing(p=1.0, scale=(0.02, 0.15)),
    ])


class TwoViews(Dataset):
    def __init__(self, base):
        self.base = base
        self.weak, self.strong = weak_transform(), strong_transform()

    def __len__(self):
        return len(self.base)

    def __getitem__(self, idx):
        img, _ = self.base[idx]
        return self.weak(img), self.strong(img)


def split_labeled(targets, num_labels, num_classes, seed=0):
    rng = np.random.default_rng(seed)
    targets = np.asarray(targets)
    per_class = num_labels // num_classes
    lb_idx = np.concatenate([rng.choice(np.where(targets == c)[0], per_class, replace=False)
                             for c in range(num_classes)])
    return lb_idx


def build_datasets(root, num_labels, num_classes=10, seed=0):
    raw = datasets.CIFAR10(root, train=True, download=True)
    lb_idx = split_labeled(raw.targets, num_labels, num_classes, seed)
    labeled = Subset(datasets.CIFAR10(root, train=True, transform=weak_transform()), lb_idx)
    unlabeled = TwoViews(raw)
    test = datasets.CIFAR10(root, train=False, transform=transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize(MEAN, STD)]))
    return labeled, unlabeled, test
