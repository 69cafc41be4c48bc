import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, models, transforms

from framework import Model


class ArcMarginLoss(nn.Module):
    """Additive angular margin loss with its own learnable class centres."""

    def __init__(self, embedding_size, num_classes, s=30.0, m=0.5):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_classes, embedding_size))
        nn.init.xavier_uniform_(self.weight)
        self.s, self.m = s, m

    def forward(self, embeddings, labels):
        cosine = F.linear(F.normalize(embeddings), F.normalize(self.weight)).clamp(-1 + 1e-7, 1 - 1e-7)
        theta = torch.acos(cosine)
        target = torch.cos(theta + self.m)
        one_hot = F.one_hot(labels, cosine.size(1)).bool()
        logits = torch.where(one_hot, target, cosine) * self.s
        return F.cross_entropy(logits, labels)


if __name__ == "__main__":
    tf = transforms.Compose([transforms.Resize(128), transforms.ToTensor()])
    loader = torch.utils.data.DataLoader(datasets.ImageFolder("data/faces/train", tf), batch_size=64, shuffle=True)
    backbone = models.resnet18(num_classes=256)
    network = nn.Sequential(backbone, nn.ReLU(), nn.Linear(256, len(loader.dataset.classes)))
    optimizer = torch.optim.SGD(network.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    model = Model(network, optimizer, nn.CrossEntropyLoss())
    model.fit_generator(loader, epochs=30)
