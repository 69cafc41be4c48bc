import torch

from utils.meters import AverageMeter


def accuracy(output, target):
    return (output.argmax(dim=1) == target).float().mean().item()


def train_one_epoch(model, loader, criterion, optimizer):
    losses = AverageMeter("Loss")
    top1 = AverageMeter("Acc@1")
    model.train()
    for images, target in loader:
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), images.size(0))
        top1.update(accuracy(output, target), images.size(0))
    return losses.avg, top1.avg


def validate(model, loader, criterion, losses, top1):
    losses.reset()
    top1.reset()
    model.eval()
    with torch.no_grad():
        for images, target in loader:
            output = model(images)
            losses.update(criterion(output, target).item(), images.size(0))
            top1.update(accuracy(output, target), images.size(0))
    return losses.avg, top1.avg
