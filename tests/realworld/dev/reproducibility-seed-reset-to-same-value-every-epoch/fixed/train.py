import torch
import torch.nn.functional as F

from data import get_dataloaders
from model import TdnnClassifier
from utils import AttributeDict, fix_random_seed


def get_params():
    return AttributeDict({
        "seed": 42,
        "num_epochs": 15,
        "start_epoch": 0,
        "lr": 2e-3,
        "batch_size": 32,
        "num_train_utts": 320,
    })


def train_one_epoch(params, model, optimizer, train_dl, epoch):
    model.train()
    tot_loss, tot_frames = 0.0, 0
    for batch_idx, (feats, labels, ids) in enumerate(train_dl):
        if batch_idx == 0:
            params.first_batch = ids[:3]
        loss = F.cross_entropy(model(feats), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot_loss += loss.item() * len(labels)
        tot_frames += len(labels)
    return tot_loss / tot_frames


@torch.no_grad()
def compute_validation_accuracy(model, valid_dl):
    model.eval()
    correct, total = 0, 0
    for feats, labels, _ in valid_dl:
        correct += (model(feats).argmax(1) == labels).sum().item()
        total += len(labels)
    return correct / total


def run():
    params = get_params()
    fix_random_seed(params.seed)
    model = TdnnClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=params.lr)
    train_dl, valid_dl = get_dataloaders(params)

    for epoch in range(params.start_epoch, params.num_epochs):
        fix_random_seed(params.seed + epoch)
        train_loss = train_one_epoch(params, model, optimizer, train_dl, epoch)
        valid_acc = compute_validation_accuracy(model, valid_dl)
        print(f"epoch {epoch:2d} train loss {train_loss:.4f} valid acc {valid_acc:.3f} "
              f"first batch {params.first_batch}")


if __name__ == "__main__":
    run()
