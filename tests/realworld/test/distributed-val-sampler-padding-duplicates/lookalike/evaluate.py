import torch


@torch.no_grad()
def full_accuracy(clf, dataset):
    clf.eval()
    x, y = dataset.tensors
    return (clf(x).argmax(1) == y).float().mean().item()
