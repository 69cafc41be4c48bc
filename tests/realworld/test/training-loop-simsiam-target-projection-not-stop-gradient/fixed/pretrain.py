import lightning as L
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

from simsiam_module import SimSiam


class TwoViews:
    def __init__(self, transform):
        self.transform = transform

    def __call__(self, img):
        return self.transform(img), self.transform(img)


def build_transform(size=96):
    return T.Compose([
        T.RandomResizedCrop(size, scale=(0.2, 1.0)),
        T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
        T.RandomGrayscale(p=0.2),
        T.RandomHorizontalFlip(),
        T.RandomVerticalFlip(),
        T.ToTensor(),
        T.Normalize([0.70, 0.55, 0.70], [0.15, 0.20, 0.15]),
    ])


def main():
    batch_size = 256
    dataset = ImageFolder("data/tiles_unlabeled", transform=TwoViews(build_transform()))
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True, num_workers=8, pin_memory=True)
    model = SimSiam(batch_size=batch_size, max_epochs=200)
    trainer = L.Trainer(max_epochs=200, accelerator="auto", devices=1, precision="16-mixed", log_every_n_steps=20)
    trainer.fit(model, loader)
    trainer.save_checkpoint("simsiam_tiles.ckpt")


if __name__ == "__main__":
    main()
