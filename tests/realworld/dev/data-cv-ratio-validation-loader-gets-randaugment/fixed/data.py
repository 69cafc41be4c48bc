import torch
import torchvision
import torchvision.transforms as T
from sklearn.model_selection import StratifiedShuffleSplit
from torch.utils.data import DataLoader, Subset

_MEAN, _STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def get_transforms(n_ops, magnitude):
    transform_train = T.Compose([
        T.RandomCrop(32, padding=4),
        T.RandomHorizontalFlip(),
        T.RandAugment(num_ops=n_ops, magnitude=magnitude),
        T.ToTensor(),
        T.Normalize(_MEAN, _STD),
    ])
    transform_test = T.Compose([T.ToTensor(), T.Normalize(_MEAN, _STD)])
    return transform_train, transform_test


def get_dataloaders(root, batch, cv_ratio=0.0, n_ops=2, magnitude=9, seed=0):
    transform_train, transform_test = get_transforms(n_ops, magnitude)
    total_trainset = torchvision.datasets.CIFAR10(root, train=True, download=True, transform=transform_train)
    testset = torchvision.datasets.CIFAR10(root, train=False, download=True, transform=transform_test)

    validloader = None
    if cv_ratio > 0.0:
        sss = StratifiedShuffleSplit(n_splits=1, test_size=cv_ratio, random_state=seed)
        train_idx, valid_idx = next(sss.split(list(range(len(total_trainset))), total_trainset.targets))
        trainset = Subset(total_trainset, train_idx)
        plain_trainset = torchvision.datasets.CIFAR10(root, train=True, download=True, transform=transform_test)
        validset = Subset(plain_trainset, valid_idx)
        validloader = DataLoader(validset, batch_size=batch, shuffle=False, num_workers=4)
    else:
        trainset = total_trainset

    trainloader = DataLoader(trainset, batch_size=batch, shuffle=True, num_workers=8, drop_last=True)
    testloader = DataLoader(testset, batch_size=batch, shuffle=False, num_workers=4)
    return trainloader, validloader, testloader
