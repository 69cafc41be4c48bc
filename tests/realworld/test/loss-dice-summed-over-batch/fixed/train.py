import torch

from losses import DiceBCE


def train_one_epoch(vnet, loader, optimizer, device):
    criterion = DiceBCE()
    vnet.train()
    running = []
    for volume, mask in loader:
        volume, mask = volume.to(device), mask.to(device).float()
        loss = criterion(vnet(volume), mask)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running.append(loss.item())
    return sum(running) / len(running)


@torch.no_grad()
def validate(vnet, loader, device):
    criterion = DiceBCE()
    vnet.eval()
    losses = [criterion(vnet(v.to(device)), m.to(device).float()).item() for v, m in loader]
    return sum(losses) / len(losses)
