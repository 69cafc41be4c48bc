import torch
import torch.nn as nn

from net import pretrained_backbone

CONFIG = {"num_classes": 3, "lr": 0.01, "steps": 300, "batch": 64}


def build_optimizer(model, lr):
    head_params = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.Adam(head_params, lr=lr)


def adapt_for_task(model, num_classes):
    for p in model.features.parameters():
        p.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


def make_task(n=3000, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 32, generator=g)
    y = (x[:, :3].argmax(1)).long()
    return x, y


def finetune(model, optimizer, x, y, cfg):
    loss_fn = nn.CrossEntropyLoss()
    for step in range(cfg["steps"]):
        idx = torch.randint(0, len(x), (cfg["batch"],))
        optimizer.zero_grad()
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        optimizer.step()
        if step % 50 == 0 or step == cfg["steps"] - 1:
            with torch.no_grad():
                acc = (model(x).argmax(1) == y).float().mean().item()
            print(f"step {step} loss {loss.item():.4f} acc {acc:.3f}")


if __name__ == "__main__":
    model = pretrained_backbone()
    optimizer = build_optimizer(model, CONFIG["lr"])
    model = adapt_for_task(model, CONFIG["num_classes"])
    x, y = make_task()
    finetune(model, optimizer, x, y, CONFIG)
