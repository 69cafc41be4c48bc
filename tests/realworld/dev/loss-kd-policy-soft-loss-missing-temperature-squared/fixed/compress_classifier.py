import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from kd_policy import DistillationLossWeights, KnowledgeDistillationPolicy
from policy import CompressionScheduler


def make_mlp(width, depth, n_in=32, n_classes=10):
    layers, d = [], n_in
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
        d = width
    layers.append(nn.Linear(d, n_classes))
    return nn.Sequential(*layers)


def get_loaders(batch_size):
    x = torch.randn(2048, 32)
    y = (x[:, :10].argmax(dim=1) + (x[:, 10] > 1).long()) % 10
    ds = TensorDataset(x, y)
    train, val = torch.utils.data.random_split(ds, [1792, 256])
    return DataLoader(train, batch_size=batch_size, shuffle=True), DataLoader(val, batch_size=256)


def train_epoch(loader, model, criterion, optimizer, epoch, scheduler, forward_fn):
    model.train()
    steps = len(loader)
    for i, (inputs, target) in enumerate(loader):
        output = forward_fn(inputs)
        loss = criterion(output, target)
        loss = scheduler.before_backward_pass(epoch, i, steps, loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def validate(loader, model):
    model.eval()
    correct = total = 0
    for inputs, target in loader:
        correct += (model(inputs).argmax(1) == target).sum().item()
        total += target.numel()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--kd-teacher", default="teacher.pth")
    parser.add_argument("--kd-temp", type=float, default=5.0)
    parser.add_argument("--kd-distill-wt", type=float, default=0.7)
    parser.add_argument("--kd-student-wt", type=float, default=0.3)
    args = parser.parse_args()

    train_loader, val_loader = get_loaders(128)
    student = make_mlp(width=64, depth=2)
    teacher = make_mlp(width=512, depth=4)
    try:
        teacher.load_state_dict(torch.load(args.kd_teacher, map_location="cpu"))
    except FileNotFoundError:
        print("no teacher checkpoint found, using random teacher")

    scheduler = CompressionScheduler(student)
    kd = KnowledgeDistillationPolicy(
        student, teacher, args.kd_temp,
        DistillationLossWeights(args.kd_distill_wt, args.kd_student_wt, 0.0),
    )
    scheduler.add_policy(kd)

    optimizer = torch.optim.SGD(student.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        scheduler.on_epoch_begin(epoch)
        train_epoch(train_loader, student, criterion, optimizer, epoch, scheduler, kd.forward)
        scheduler.on_epoch_end(epoch)
        print(f"epoch {epoch} val top1 {validate(val_loader, student):.3f}")


if __name__ == "__main__":
    main()
