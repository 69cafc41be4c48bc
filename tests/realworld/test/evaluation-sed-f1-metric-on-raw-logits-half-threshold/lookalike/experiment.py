import torch
import torch.nn as nn

from metrics import error_rate_per_frame, f1_per_frame
from model import DNDSED


def run_epoch(net, loader, objective, optimizer=None, device="cuda"):
    training = optimizer is not None
    net.train(training)
    losses, outs, targets = [], [], []
    with torch.set_grad_enabled(training):
        for feats, labels in loader:
            feats, labels = feats.to(device), labels.to(device)
            y_hat = net(feats)
            loss = objective(y_hat, labels)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            losses.append(loss.item())
            outs.append(y_hat.detach().cpu())
            targets.append(labels.cpu())
    y_hat, y_true = torch.cat(outs), torch.cat(targets)
    return sum(losses) / len(losses), f1_per_frame(y_hat, y_true), error_rate_per_frame(y_hat, y_true)


def experiment(train_loader, valid_loader, settings):
    device = settings.get("device", "cuda")
    net = DNDSED(**settings["model"]).to(device)
    objective = nn.BCELoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=settings["lr"])
    best_f1, patience_left = -1.0, settings["patience"]
    for epoch in range(settings["epochs"]):
        tr = run_epoch(net, train_loader, objective, optimizer, device)
        va = run_epoch(net, valid_loader, objective, None, device)
        print(f"epoch {epoch:03d} | train loss {tr[0]:.4f} f1 {tr[1]:.3f} er {tr[2]:.3f} "
              f"| valid loss {va[0]:.4f} f1 {va[1]:.3f} er {va[2]:.3f}")
        if va[1] > best_f1:
            best_f1, patience_left = va[1], settings["patience"]
            torch.save(net.state_dict(), settings["checkpoint"])
        else:
            patience_left -= 1
            if patience_left == 0:
                break
    return best_f1
