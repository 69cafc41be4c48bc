import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as transforms
from torch.utils.data import DataLoader

from dataset import ChestXrayDataSet

N_CLASSES = 14
NORM = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])


class DenseNet121(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.densenet121 = torchvision.models.densenet121(weights="IMAGENET1K_V1")
        n = self.densenet121.classifier.in_features
        self.densenet121.classifier = nn.Sequential(nn.Linear(n, n_classes), nn.Sigmoid())

    def forward(self, x):
        return self.densenet121(x)


class ChexnetTrainer:
    def __init__(self, data_dir, batch_size=16, crop=224, resize=256):
        train_tf = transforms.Compose([transforms.RandomResizedCrop(crop), transforms.RandomHorizontalFlip(), transforms.ToTensor(), NORM])
        val_tf = transforms.Compose([transforms.Resize(resize), transforms.CenterCrop(crop), transforms.ToTensor(), NORM])
        self.train_dl = DataLoader(ChestXrayDataSet(data_dir, "train_1.txt", train_tf), batch_size, shuffle=True, num_workers=8)
        self.val_dl = DataLoader(ChestXrayDataSet(data_dir, "val_1.txt", val_tf), batch_size, shuffle=False, num_workers=8)
        self.model = DenseNet121(N_CLASSES).cuda()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-5)
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, factor=0.1, patience=5, mode="min")
        self.loss = nn.BCELoss()

    def epoch_train(self):
        self.model.train()
        for x, y in self.train_dl:
            out = self.model(x.cuda())
            l = self.loss(out, y.cuda())
            self.optimizer.zero_grad()
            l.backward()
            self.optimizer.step()

    def epoch_val(self):
        self.model.eval()
        total = 0.0
        with torch.no_grad():
            for x, y in self.val_dl:
                total += self.loss(self.model(x.cuda()), y.cuda()).item()
        return total / len(self.val_dl)

    def fit(self, epochs=100):
        best = float("inf")
        for epoch in range(epochs):
            self.epoch_train()
            val = self.epoch_val()
            self.scheduler.step(val)
            if val < best:
                best = val
                torch.save(self.model.state_dict(), "m-best.pth.tar")
            print(epoch, val)


if __name__ == "__main__":
    ChexnetTrainer("./database").fit()
