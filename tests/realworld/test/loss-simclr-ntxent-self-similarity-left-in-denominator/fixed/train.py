import pytorch_lightning as pl
from pytorch_lightning.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import CIFAR10

from simclr_module import SimCLR


class SimCLRTrainTransform:
    """Return two random augmentations of the image plus a plain view for online evaluation."""

    def __init__(self, input_height=32):
        color_jitter = transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)
        self.train_transform = transforms.Compose([
            transforms.RandomResizedCrop(input_height),
            transforms.RandomHorizontalFlip(),
            transforms.RandomApply([color_jitter], p=0.8),
            transforms.RandomGrayscale(p=0.2),
            transforms.ToTensor(),
            transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261)),
        ])
        self.plain = transforms.Compose([
            transforms.ToTensor(),
            transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261)),
        ])

    def __call__(self, img):
        return self.train_transform(img), self.train_transform(img), self.plain(img)


def main(data_dir="./data", batch_size=256, max_epochs=100, num_workers=8):
    train_set = CIFAR10(data_dir, train=True, download=True, transform=SimCLRTrainTransform())
    val_set = CIFAR10(data_dir, train=False, download=True, transform=SimCLRTrainTransform())
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=True, num_workers=num_workers)
    val_loader = DataLoader(val_set, batch_size=batch_size, drop_last=True, num_workers=num_workers)

    model = SimCLR(batch_size=batch_size, max_epochs=max_epochs)
    trainer = pl.Trainer(
        max_epochs=max_epochs,
        accelerator="auto",
        devices="auto",
        precision="16-mixed",
        callbacks=[ModelCheckpoint(monitor="val_loss", save_last=True), LearningRateMonitor("step")],
    )
    trainer.fit(model, train_loader, val_loader)


if __name__ == "__main__":
    main()
