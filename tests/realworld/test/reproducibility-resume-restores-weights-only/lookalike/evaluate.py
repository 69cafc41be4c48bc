import torch
from torchvision.models import mobilenet_v2


def load_for_eval(path):
    net = mobilenet_v2(num_classes=1000)
    ckpt = torch.load(path, map_location="cpu")
    net.load_state_dict(ckpt["state_dict"])
    return net.eval()


@torch.no_grad()
def top1(net, loader):
    correct = total = 0
    for x, y in loader:
        correct += (net(x).argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total
