import copy
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_dataloaders(seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(64, 2, generator=g)
    x = torch.randn(3000, 64, generator=g)
    y = (x @ w + 0.3 * torch.randn(3000, 2, generator=g)).argmax(1)
    return {
        "train": DataLoader(TensorDataset(x[:2400], y[:2400]), batch_size=32, shuffle=True, generator=g),
        "val": DataLoader(TensorDataset(x[2400:], y[2400:]), batch_size=128),
    }


class FineTuneNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 128), nn.ReLU())
        self.fc = nn.Linear(128, 2)

    def forward(self, x):
        return self.fc(self.features(x))


def train_model(model, dataloaders, criterion, optimizer, scheduler, num_epochs=8):
    since = time.time()
    best_wts, best_acc = copy.deepcopy(model.state_dict()), 0.0
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            model.train() if phase == "train" else model.eval()
            running_loss, running_corrects = 0.0, 0
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += (outputs.argmax(1) == labels).sum().item()
            if phase == "train":
                scheduler.step()
            n = len(dataloaders[phase].dataset)
            epoch_loss, epoch_acc = running_loss / n, running_corrects / n
            print(f"epoch {epoch} {phase} loss {epoch_loss:.4f} acc {epoch_acc:.4f} lr {optimizer.param_groups[0]['lr']:.1e}")
            if phase == "val" and epoch_acc > best_acc:
                best_acc, best_wts = epoch_acc, copy.deepcopy(model.state_dict())
    print(f"done in {time.time() - since:.1f}s, best val acc {best_acc:.4f}")
    model.load_state_dict(best_wts)
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    model_ft = FineTuneNet()
    criterion = nn.CrossEntropyLoss()
    optimizer_ft = torch.optim.SGD(model_ft.parameters(), lr=0.001, momentum=0.9)
    exp_lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer_ft, step_size=7, gamma=0.1)
    train_model(model_ft, make_dataloaders(), criterion, optimizer_ft, exp_lr_scheduler, num_epochs=8)
