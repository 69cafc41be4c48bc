import torch
from torchvision import datasets, transforms

from gan import GAN


if __name__ == "__main__":
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    loader = torch.utils.data.DataLoader(datasets.MNIST("data", train=True, download=True, transform=tf),
                                         batch_size=128, shuffle=True)
    gan = GAN(device="cuda" if torch.cuda.is_available() else "cpu")
    for epoch in range(50):
        for i, data in enumerate(loader):
            d_loss, g_loss = gan.step(data)
            if i % 200 == 0:
                print(f"[{epoch}][{i}] Loss_D {d_loss:.4f} Loss_G {g_loss:.4f}")
