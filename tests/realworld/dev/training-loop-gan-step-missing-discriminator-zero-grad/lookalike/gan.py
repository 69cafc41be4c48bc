import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent_dims=100, image_size=784):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(latent_dims, 256), nn.LeakyReLU(0.2), nn.Linear(256, 512),
                                  nn.LeakyReLU(0.2), nn.Linear(512, image_size), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, image_size=784):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(image_size, 512), nn.LeakyReLU(0.2), nn.Linear(512, 256),
                                  nn.LeakyReLU(0.2), nn.Linear(256, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x)


class GAN:
    def __init__(self, latent_dims=100, image_size=784, lr=2e-4, device="cpu"):
        self.latent_dims = latent_dims
        self.device = device
        self.generator = Generator(latent_dims, image_size).to(device)
        self.discriminator = Discriminator(image_size).to(device)
        self.criterion = nn.BCELoss()
        self.optimizerD = torch.optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizerG = torch.optim.Adam(self.generator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.real_label, self.fake_label = 1.0, 0.0

    def step(self, data):
        real = data[0].view(data[0].size(0), -1).to(self.device)
        b_size = real.size(0)
        label = torch.full((b_size,), self.real_label, device=self.device)

        self.optimizerD.zero_grad(set_to_none=True)
        output = self.discriminator(real).view(-1)
        errD_real = self.criterion(output, label)
        errD_real.backward()

        noise = torch.randn(b_size, self.latent_dims, device=self.device)
        fake = self.generator(noise)
        label.fill_(self.fake_label)
        output = self.discriminator(fake.detach()).view(-1)
        errD_fake = self.criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        self.optimizerD.step()

        self.generator.zero_grad()
        for p in self.discriminator.parameters():
            p.requires_grad_(False)
        label.fill_(self.real_label)
        output = self.discriminator(fake).view(-1)
        errG = self.criterion(output, label)
        errG.backward()
        self.optimizerG.step()
        for p in self.discriminator.parameters():
            p.requires_grad_(True)
        return errD.item(), errG.item()
