import torch
from torchvision.models import resnet50


def export_half(weights_path, out_path):
    net = resnet50()
    net.load_state_dict(torch.load(weights_path, map_location="cpu"))
    net = net.eval().half().cuda()
    example = torch.randn(1, 3, 224, 224, device="cuda", dtype=torch.half)
    with torch.no_grad():
        traced = torch.jit.trace(net, example)
    traced.save(out_path)
