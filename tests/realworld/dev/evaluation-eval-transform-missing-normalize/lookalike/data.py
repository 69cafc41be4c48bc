from torchvision import datasets, transforms
from torch.utils.data import DataLoader

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def get_loaders(root, image_size=224, batch_size=32):
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(image_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    test_tf = transforms.Compose([
        transforms.Resize((image_size, image_size)),
        transforms.ToTensor(),
    ])
    test_tf.transforms.append(transforms.Normalize(MEAN, STD))
    train_ds = datasets.ImageFolder(f"{root}/train", train_tf)
    val_ds = datasets.ImageFolder(f"{root}/val", test_tf)
    test_ds = datasets.ImageFolder(f"{root}/test", test_tf)
    return (DataLoader(train_ds, batch_size, shuffle=True, num_workers=4),
            DataLoader(val_ds, batch_size, num_workers=4),
            DataLoader(test_ds, batch_size, num_workers=4))
