import os
import tempfile

import torch
import torch.nn.functional as F

from data import make_task
from model import LitModel, Net


def pretrain(ckpt_path, steps=300):
    torch.manual_seed(0)
    lit = LitModel()
    opt = torch.optim.Adam(lit.parameters(), lr=1e-3)
    x, y = make_task(4096, seed=1)
    for step in range(steps):
        idx = torch.randint(0, len(x), (128,))
        loss = F.cross_entropy(lit(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"pretrain final loss {loss.item():.4f}")
    torch.save({"state_dict": lit.state_dict()}, ckpt_path)


def load_pretrained(net, ckpt_path):
    state_dict = torch.load(ckpt_path)["state_dict"]
    state_dict = {k.removeprefix("model."): v for k, v in state_dict.items()
                  if not k.startswith("model.classifier.")}
    result = net.load_state_dict(state_dict, strict=False)
    assert sorted(result.missing_keys) == ["classifier.bias", "classifier.weight"], result
    assert not result.unexpected_keys, result
    return net


def finetune(ckpt_path, steps=60):
    torch.manual_seed(1)
    net = load_pretrained(Net(), ckpt_path)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    x, y = make_task(256, seed=2)
    xv, yv = make_task(1024, seed=3)
    for step in range(steps):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == steps - 1:
            with torch.no_grad():
                acc = (net(xv).argmax(1) == yv).float().mean().item()
            print(f"finetune step {step:3d} loss {loss.item():.4f} val_acc {acc:.3f}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        ckpt = os.path.join(d, "pretrained.ckpt")
        pretrain(ckpt)
        finetune(ckpt)
