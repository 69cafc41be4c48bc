import time
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler
from torchvision import datasets, models, transforms

data_transforms = {
    "train": transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                                 transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]),
    "val": transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(),
                               transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]),
}
image_datasets = {x: datasets.ImageFolder(f"data/hymenoptera_data/{x}", data_transforms[x]) for x in ["train", "val"]}
dataloaders = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=4, shuffle=True, num_workers=4) for x in ["train", "val"]}
dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def train_model(model, criterion, optimizer, scheduler, num_epochs=25):
    since = time.time()
    best_model_wts = {k: v.detach().clone() for k, v in model.state_dict().items()}
    best_acc = 0.0
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            model.train() if phase == "train" else model.eval()
            running_loss, running_corrects = 0.0, 0
            for inputs, labels in dataloaders[phase]:
                inputs, labels = inputs.to(device), labels.to(device)
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
            epoch_acc = running_corrects / dataset_sizes[phase]
            print(f"{epoch} {phase} loss {running_loss / dataset_sizes[phase]:.4f} acc {epoch_acc:.4f}")
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = {k: v.detach().clone() for k, v in model.state_dict().items()}
    print(f"Training complete in {time.time() - since:.0f}s, best val acc {best_acc:.4f}")
    model.load_state_dict(best_model_wts)
    return model


if __name__ == "__main__":
    model_ft = models.resnet18(weights="IMAGENET1K_V1")
    model_ft.fc = nn.Linear(model_ft.fc.in_features, 2)
    model_ft = model_ft.to(device)
    optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.001, momentum=0.9)
    exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=7, gamma=0.1)
    model_ft = train_model(model_ft, nn.CrossEntropyLoss(), optimizer_ft, exp_lr_scheduler)
    torch.save(model_ft.state_dict(), "best_resnet18_ants_bees.pt")
