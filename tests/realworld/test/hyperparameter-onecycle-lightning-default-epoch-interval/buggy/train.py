import argparse
import lightning as L
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from module import LitClassifier


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--max-lr", type=float, default=0.1)
    args = p.parse_args()

    tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    train_ds = datasets.CIFAR10("data", train=True, download=True, transform=tf)
    val_ds = datasets.CIFAR10("data", train=False, download=True, transform=transforms.ToTensor())
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, num_workers=4)
    val_dl = DataLoader(val_ds, batch_size=256, num_workers=4)

    model = LitClassifier(max_lr=args.max_lr, epochs=args.epochs, steps_per_epoch=len(train_dl))
    trainer = L.Trainer(max_epochs=args.epochs, accelerator="auto")
    trainer.fit(model, train_dl, val_dl)


if __name__ == "__main__":
    main()
