import yaml
import torch
from torchvision.models import resnet18
from torchvision.models.feature_extraction import create_feature_extractor

from lanenet.detector import LaneSeg
from data import build_culane_loader


class Trunk(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = create_feature_extractor(resnet18(weights="IMAGENET1K_V1"), {"layer3": "feat"})

    def forward(self, x):
        return self.body(x)["feat"]


def run(cfg_path):
    cfg = yaml.safe_load(open(cfg_path))
    net = LaneSeg(Trunk(), cfg).cuda()
    loader = build_culane_loader(cfg, split="train")
    opt = torch.optim.SGD(net.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=1e-4)
    for epoch in range(cfg["epochs"]):
        for i, batch in enumerate(loader):
            batch = {k: v.cuda() for k, v in batch.items()}
            losses = net.loss(net(batch["img"]), batch)
            opt.zero_grad()
            losses["loss"].backward()
            opt.step()
            if i % 50 == 0:
                print(epoch, i, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    run("configs/resa_culane.yaml")
