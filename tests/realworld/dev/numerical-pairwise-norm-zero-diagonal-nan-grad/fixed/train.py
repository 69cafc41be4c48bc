import torch

from losses import ContrastiveLoss


def train_embedder(embedder, loader, epochs=20, lr=1e-3):
    objective = ContrastiveLoss(margin=1.0)
    params = [{"params": embedder.backbone.parameters(), "lr": lr * 0.1},
              {"params": embedder.head.parameters(), "lr": lr}]
    opt = torch.optim.Adam(params)
    for epoch in range(epochs):
        for x, y in loader:
            emb = embedder(x)
            loss = objective(emb, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())
