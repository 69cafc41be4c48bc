import torch
import timm

from focal_loss import FocalLoss


def train_multilabel(data_loader, num_classes=80, epochs=10, device="cuda"):
    clf = timm.create_model("resnet50", pretrained=True, num_classes=num_classes).to(device)
    criterion = FocalLoss(gamma=2.0, alpha=0.25)
    opt = torch.optim.SGD(clf.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs * len(data_loader))
    for epoch in range(epochs):
        for images, labels in data_loader:
            logits = clf(images.to(device))
            loss = criterion(logits, labels.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(epoch, loss.item())
