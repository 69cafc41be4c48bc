import torch
import torchvision.datasets as datasets
import torchvision.transforms as transforms
from torch.utils.data import ConcatDataset, DataLoader


def prepare_data_loaders(dataset_names, data_dir, imdb_dir, shuffle_train=True, batch_size=128):
    train_loaders, val_loaders, num_classes = [], [], []
    for name in dataset_names:
        means, stds = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
        train_tf = transforms.Compose([transforms.RandomResizedCrop(72), transforms.RandomHorizontalFlip(),
                                       transforms.ToTensor(), transforms.Normalize(means, stds)])
        val_tf = transforms.Compose([transforms.Resize(72), transforms.CenterCrop(72), transforms.ToTensor(),
                                     transforms.Normalize(means, stds)])
        train_set = datasets.ImageFolder(f"{data_dir}/{name}/train", train_tf)
        val_set = datasets.ImageFolder(f"{data_dir}/{name}/val", val_tf)
        val_as_train = datasets.ImageFolder(f"{data_dir}/{name}/val", train_tf)
        trainval = train_set
        train_loaders.append(DataLoader(trainval, batch_size=batch_size, shuffle=shuffle_train, num_workers=4, pin_memory=True))
        val_loaders.append(DataLoader(val_set, batch_size=100, shuffle=False, num_workers=4, pin_memory=True))
        num_classes.append(len(train_set.classes))
    return train_loaders, val_loaders, num_classes
