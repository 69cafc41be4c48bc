import torch

from common import deform_with_MVC
from losses import AllLosses
from networks import CageNet
from options import parse_options
from datasets import build_pairs_loader


def train():
    opt = parse_options()
    net = CageNet(opt)
    criterion = AllLosses(opt)
    optimizer = torch.optim.Adam(net.parameters(), lr=opt.lr)
    for epoch in range(opt.nepochs):
        for data in build_pairs_loader(opt):
            cage, new_cage, cage_face = net(data["source_shape"], data["target_shape"])
            deformed, weight = deform_with_MVC(cage, new_cage, cage_face, data["source_shape"])
            outputs = {"cage": cage, "new_cage": new_cage, "deformed": deformed, "weight": weight}
            loss = criterion(data, outputs)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} " + " ".join(f"{k}={v.item():.4f}" for k, v in criterion.loss.items()))


if __name__ == "__main__":
    train()
