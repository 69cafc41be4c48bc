import argparse

import torch
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR100

from hierarchical_loss import HierarchicalLossNetwork
from level_dict import SUBCLASS_TO_SUPERCLASS, hierarchy
from model import HierarchicalResNet


class HierarchicalCIFAR(CIFAR100):
    def __getitem__(self, index):
        image, fine = super().__getitem__(index)
        return image, SUBCLASS_TO_SUPERCLASS[fine], fine


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--beta", type=float, default=0.8)
    parser.add_argument("--data", default="./data")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = T.Compose([T.Resize(224), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))])
    train_set = HierarchicalCIFAR(args.data, train=True, download=True, transform=tf)
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4)

    model = HierarchicalResNet(num_classes=(20, 100)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    HLN = HierarchicalLossNetwork(hierarchical_labels=hierarchy, device=device,
                                  beta=args.beta)

    for epoch in range(args.epochs):
        model.train()
        for step, (images, super_lbl, sub_lbl) in enumerate(loader):
            images = images.to(device)
            super_lbl, sub_lbl = super_lbl.to(device), sub_lbl.to(device)
            optimizer.zero_grad()
            superclass_pred, subclass_pred = model(images)
            prediction = [superclass_pred, subclass_pred]
            dloss = HLN.calculate_dloss(prediction, [super_lbl, sub_lbl])
            lloss = HLN.calculate_lloss(prediction, [super_lbl, sub_lbl])
            total_loss = lloss + dloss
            total_loss.backward()
            optimizer.step()
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} lloss {lloss.item():.3f} "
                      f"dloss {dloss.item():.3f} "
                      f"super acc {accuracy(superclass_pred, super_lbl):.3f} "
                      f"sub acc {accuracy(subclass_pred, sub_lbl):.3f}")
        torch.save(model.state_dict(), f"hierarchical_resnet_{epoch}.pth")


if __name__ == "__main__":
    main()
