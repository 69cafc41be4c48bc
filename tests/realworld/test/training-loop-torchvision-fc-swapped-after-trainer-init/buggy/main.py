import torch.nn as nn
import torchvision
from torchvision.models import ResNet50_Weights

from data import get_loaders
from trainer import Trainer


def main(num_classes=37, epochs=15):
    backbone = torchvision.models.resnet50(weights=ResNet50_Weights.IMAGENET1K_V2)
    for name, p in backbone.named_parameters():
        p.requires_grad = name.startswith("fc.")
    trainer = Trainer(backbone)
    backbone.fc = nn.Linear(backbone.fc.in_features, num_classes).to(trainer.device)
    train_loader, val_loader = get_loaders("data/oxford_pets", batch_size=64)
    for epoch in range(epochs):
        print(f"epoch {epoch}: loss {trainer.train_epoch(train_loader):.4f}")


if __name__ == "__main__":
    main()
