import torch
import torch.nn as nn

from config import TrainConfig
from data import make_dataset, rank_loader


def run(cfg):
    torch.manual_seed(cfg.seed)
    dataset = make_dataset()
    ranks = [rank_loader(dataset, cfg, r) for r in range(cfg.world_size)]
    clf = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(clf.parameters(), lr=cfg.lr, momentum=0.9)
    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(cfg.epochs):
        for sampler, _ in ranks:
            sampler.set_epoch(epoch)
        seen = torch.zeros(len(dataset), dtype=torch.long)
        # one optimizer step per "global" batch = the per-rank batches DDP would average over
        for step, batches in enumerate(zip(*[loader for _, loader in ranks])):
            x = torch.cat([b[0] for b in batches])
            y = torch.cat([b[1] for b in batches])
            for b in batches:
                seen[b[2]] += 1
            opt.zero_grad()
            loss = loss_fn(clf(x), y)
            loss.backward()
            opt.step()
            if step % 8 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        covered = (seen > 0).float().mean().item()
        print(f"epoch {epoch}: {covered:.1%} of samples seen, {int((seen > 1).sum())} seen more than once")


if __name__ == "__main__":
    run(TrainConfig())
