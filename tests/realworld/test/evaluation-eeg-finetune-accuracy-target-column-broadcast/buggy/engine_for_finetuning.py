"""One training epoch and one evaluation pass for EEG event classification."""
import torch

from utils import MetricLogger, accuracy


def train_one_epoch(model, criterion, data_loader, optimizer, device, max_norm=None):
    model.train()
    logger = MetricLogger()
    for samples, targets in data_loader:
        samples, targets = samples.to(device), targets.to(device)
        output = model(samples)
        loss = criterion(output, targets.squeeze(-1))
        optimizer.zero_grad()
        loss.backward()
        if max_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        class_acc = accuracy(output, targets)
        logger.update(n=samples.size(0), loss=loss.item(), class_acc=class_acc)
    return logger.averages()


@torch.no_grad()
def evaluate(model, criterion, data_loader, device):
    model.eval()
    logger = MetricLogger()
    for samples, targets in data_loader:
        samples, targets = samples.to(device), targets.to(device)
        output = model(samples)
        loss = criterion(output, targets.squeeze(-1))
        logger.update(n=samples.size(0), loss=loss.item(), accuracy=accuracy(output, targets))
    return logger.averages()
