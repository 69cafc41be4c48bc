import copy
import os
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torchvision import datasets, transforms

from model import initialize_model, params_to_update

DATA_DIR = "./data/hymenoptera_data"
NUM_CLASSES = 2
BATCH_SIZE = 16
NUM_EPOCHS = 25
FEATURE_EXTRACT = False
AUX_WEIGHT = 0.3


def train_model(model, dataloaders, criterion, optimizer, device, num_epochs=25):
    since = time.time()
    val_acc_history = []
    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0

    for epoch in range(num_epochs):
        print(f"Epoch {epoch}/{num_epochs - 1}")
        for phase in ["train", "val"]:
            model.train() if phase == "train" else model.eval()
            running_loss, running_corrects = 0.0, 0
            for inputs, labels in dataloaders[phase]:
                inputs, labels = inputs.to(device), labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    if phase == "train":
                        out = model(inputs)
                        outputs = out.logits
                        loss1 = criterion(outputs, labels)
                        loss2 = criterion(out.aux_logits1, labels)
                        loss3 = criterion(out.aux_logits2, labels)
                        loss = loss1 + AUX_WEIGHT * (loss2 + loss3)
                    else:
                        outputs = model(inputs)
                        loss = criterion(outputs, labels)
                    _, preds = torch.max(outputs, 1)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            epoch_loss = running_loss / len(dataloaders[phase].dataset)
            epoch_acc = running_corrects.double() / len(dataloaders[phase].dataset)
            print(f"{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}")
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())
            if phase == "val":
                val_acc_history.append(epoch_acc)

    elapsed = time.time() - since
    print(f"Training complete in {elapsed // 60:.0f}m {elapsed % 60:.0f}s, best val Acc: {best_acc:4f}")
    model.load_state_dict(best_model_wts)
    return model, val_acc_history


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model_ft, input_size = initialize_model(NUM_CLASSES, FEATURE_EXTRACT, use_pretrained=True)
    data_transforms = {
        "train": transforms.Compose([
            transforms.RandomResizedCrop(input_size),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ]),
        "val": transforms.Compose([
            transforms.Resize(input_size),
            transforms.CenterCrop(input_size),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ]),
    }
    image_datasets = {x: datasets.ImageFolder(os.path.join(DATA_DIR, x), data_transforms[x])
                      for x in ["train", "val"]}
    dataloaders = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=BATCH_SIZE,
                                                  shuffle=(x == "train"), num_workers=4)
                   for x in ["train", "val"]}
    model_ft = model_ft.to(device)
    optimizer_ft = optim.SGD(params_to_update(model_ft, FEATURE_EXTRACT), lr=0.001, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    model_ft, hist = train_model(model_ft, dataloaders, criterion, optimizer_ft, device,
                                 num_epochs=NUM_EPOCHS)
    torch.save(model_ft.state_dict(), "googlenet_hymenoptera.pth")


if __name__ == "__main__":
    main()
