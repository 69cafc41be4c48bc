import copy
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset


def make_loaders(batch_size=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(32, 3, generator=g)
    def split(n):
        x = torch.randn(n, 32, generator=g)
        y = (x @ w + 0.3 * torch.randn(n, 3, generator=g)).argmax(dim=1)
        return TensorDataset(x, y)
    train_ds, val_ds = split(960), split(320)
    return {
        "train": DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=g),
        "val": DataLoader(val_ds, batch_size=64),
    }


def train_model(model, dataloaders, criterion, optimizer, scheduler, num_epochs=12):
    since = time.time()
    best_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            running_loss, running_corrects, seen = 0.0, 0, 0
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += (preds == labels).sum().item()
                seen += inputs.size(0)
            if phase == "train":
                scheduler.step()
            epoch_loss = running_loss / seen
            epoch_acc = running_corrects / seen
            lr = optimizer.param_groups[0]["lr"]
            print(f"epoch {epoch:2d} {phase:5s} loss {epoch_loss:.4f} acc {epoch_acc:.3f} lr {lr:.2e}")
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_wts = copy.deepcopy(model.state_dict())
    print(f"training complete in {time.time() - since:.1f}s, best val acc {best_acc:.3f}")
    model.load_state_dict(best_wts)
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    dataloaders = make_loaders()
    model_ft = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 3))
    criterion = nn.CrossEntropyLoss()
    optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.01, momentum=0.9)
    exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=7, gamma=0.1)
    model_ft = train_model(model_ft, dataloaders, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=12)
