import torch


def train_one_epoch(net, loader, optimizer, criterion, device, epoch, log_every=50):
    net.train()
    for it, (images, target) in enumerate(loader):
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        loss = criterion(net(images), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if it % log_every == 0 and torch.distributed.get_rank() == 0:
            print(f"epoch {epoch} it {it} loss {loss.item():.4f}")
