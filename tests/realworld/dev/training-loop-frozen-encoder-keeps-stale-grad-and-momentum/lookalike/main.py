import numpy as np
import torch

from model import MultiTaskNet, set_freeze_by_names
from trainer import Trainer

IN_DIM = 20


def make_task(n, n_classes, seed, proj_seed):
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(proj_seed).normal(size=(IN_DIM, n_classes))
    x = rng.normal(size=(n, IN_DIM)).astype(np.float32)
    y = np.argmax(x @ w + 0.1 * rng.normal(size=(n, n_classes)), axis=1)
    return torch.from_numpy(x), torch.from_numpy(y)


def weights_snapshot(module):
    return torch.cat([p.detach().flatten().clone() for p in module.parameters()])


def main():
    torch.manual_seed(0)
    xa, ya = make_task(4000, 4, seed=0, proj_seed=10)
    xa_val, ya_val = make_task(1000, 4, seed=1, proj_seed=10)
    xb, yb = make_task(4000, 3, seed=2, proj_seed=11)
    xb_val, yb_val = make_task(1000, 3, seed=3, proj_seed=11)

    model = MultiTaskNet(IN_DIM)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-3)
    trainer = Trainer(model, optimizer)

    print("stage 1: encoder + head_a on task A")
    trainer.fit(xa, ya, "a", steps=600)
    acc_a_before = trainer.accuracy(xa_val, ya_val, "a")
    print(f"task A val acc after stage 1: {acc_a_before:.3f}")

    print("stage 2: freeze encoder and head_a, train head_b on task B")
    set_freeze_by_names(model, ["encoder", "head_a"], freeze=True)
    frozen_before = weights_snapshot(model.encoder)
    trainer.optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()),
                                        lr=0.05, momentum=0.9, weight_decay=5e-3)
    trainer.fit(xb, yb, "b", steps=600)
    drift = (weights_snapshot(model.encoder) - frozen_before).abs().max().item()

    print(f"task B val acc: {trainer.accuracy(xb_val, yb_val, 'b'):.3f}")
    print(f"task A val acc after stage 2: {trainer.accuracy(xa_val, ya_val, 'a'):.3f} "
          f"(was {acc_a_before:.3f})")
    print(f"max change of frozen encoder weights: {drift:.5f}")


if __name__ == "__main__":
    main()
