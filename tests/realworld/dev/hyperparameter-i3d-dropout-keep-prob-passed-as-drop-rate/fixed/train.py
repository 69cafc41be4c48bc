import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from i3d import I3D

NUM_CLASSES = 4
DIRECTIONS = [(0, 1), (0, -1), (1, 0), (-1, 0)]


def moving_dot_clips(n, frames=6, size=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    clips = 0.3 * torch.randn(n, 3, frames, size, size, generator=g)
    for i in range(n):
        dy, dx = DIRECTIONS[labels[i]]
        y, x = torch.randint(4, size - 4, (2,), generator=g).tolist()
        for t in range(frames):
            yy, xx = (y + dy * t) % size, (x + dx * t) % size
            clips[i, :, t, max(yy - 1, 0):yy + 2, max(xx - 1, 0):xx + 2] += 2.0
    return TensorDataset(clips, labels)


def run_epoch(model, loader, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total, correct, loss_sum = 0, 0, 0.0
    for clips, labels in loader:
        with torch.set_grad_enabled(training):
            _, logits = model(clips)
            loss = F.cross_entropy(logits, labels)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        loss_sum += loss.item() * len(labels)
        correct += (logits.argmax(1) == labels).sum().item()
        total += len(labels)
    return loss_sum / total, correct / total


def main():
    torch.manual_seed(0)
    train_loader = DataLoader(moving_dot_clips(256, seed=0), batch_size=16, shuffle=True)
    val_loader = DataLoader(moving_dot_clips(64, seed=1), batch_size=32)

    i3d = I3D(num_classes=NUM_CLASSES, modality="rgb")
    optimizer = torch.optim.SGD(i3d.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(3):
        tr_loss, tr_acc = run_epoch(i3d, train_loader, optimizer)
        va_loss, va_acc = run_epoch(i3d, val_loader)
        print(f"epoch {epoch}: train loss {tr_loss:.3f} acc {tr_acc:.3f} | val loss {va_loss:.3f} acc {va_acc:.3f}")


if __name__ == "__main__":
    main()
