import time

import torch
from torchvision.models import resnet50

torch.backends.cudnn.benchmark = True


def images_per_second(batch_size=64, iters=50):
    net = resnet50().cuda().eval()
    x = torch.randn(batch_size, 3, 224, 224, device="cuda")
    with torch.no_grad():
        for _ in range(5):
            net(x)
        torch.cuda.synchronize()
        t0 = time.time()
        for _ in range(iters):
            net(x)
        torch.cuda.synchronize()
    return batch_size * iters / (time.time() - t0)


if __name__ == "__main__":
    print(f"{images_per_second():.1f} img/s")
