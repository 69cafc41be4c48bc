import torch


def make_optimizers(generator, discriminator, lr=2e-4):
    opt_g = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
    return opt_g, opt_d
