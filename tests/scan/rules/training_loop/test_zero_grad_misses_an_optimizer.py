"""The ``zero-grad-misses-an-optimizer`` rule (``mlsleuth/scan/rules/training_loop/zero_grad_misses_an_optimizer.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "zero-grad-misses-an-optimizer"


def test_gan_step_that_clears_only_the_generator_flags():
    src = """
    import torch
    import torch.nn as nn

    class GAN:
        def __init__(self, generator, discriminator):
            self.generator = generator
            self.discriminator = discriminator
            self.criterion = nn.BCELoss()
            self.optimizerD = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4)
            self.optimizerG = torch.optim.Adam(self.generator.parameters(), lr=2e-4)

        def step(self, real, noise):
            out = self.discriminator(real).view(-1)
            errD_real = self.criterion(out, torch.ones_like(out))
            errD_real.backward()  # expect: zero-grad-misses-an-optimizer
            fake = self.generator(noise)
            out = self.discriminator(fake.detach()).view(-1)
            errD_fake = self.criterion(out, torch.zeros_like(out))
            errD_fake.backward()
            self.optimizerD.step()

            self.generator.zero_grad()
            out = self.discriminator(fake).view(-1)
            errG = self.criterion(out, torch.ones_like(out))
            errG.backward()
            self.optimizerG.step()

    def train(gan, loader, noise_fn):
        for real, _ in loader:
            gan.step(real, noise_fn(real.size(0)))
    """
    check(src, {RULE})


def test_script_loop_that_clears_one_optimizer_by_name_flags():
    src = """
    import torch

    def fit(actor, critic, loader):
        opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-4)
        opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
        for obs, ret in loader:
            opt_critic.zero_grad()  # expect: zero-grad-misses-an-optimizer
            value_loss = (critic(obs).squeeze(-1) - ret).pow(2).mean()
            value_loss.backward()
            opt_critic.step()
            policy_loss = -critic(actor(obs)).mean()
            policy_loss.backward()
            opt_actor.step()
    """
    check(src, {RULE})


def test_each_network_cleared_by_module_or_by_optimizer_is_fine():
    src = """
    import torch

    def train_dcgan(netD, netG, loader, criterion, nz):
        optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
        optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
        for real, _ in loader:
            netD.zero_grad()
            out = netD(real).view(-1)
            errD_real = criterion(out, torch.ones_like(out))
            errD_real.backward()
            fake = netG(torch.randn(real.size(0), nz, 1, 1))
            out = netD(fake.detach()).view(-1)
            errD_fake = criterion(out, torch.zeros_like(out))
            errD_fake.backward()
            optimizerD.step()
            netG.zero_grad()
            out = netD(fake).view(-1)
            criterion(out, torch.ones_like(out)).backward()
            optimizerG.step()

    def fit(actor, critic, loader):
        opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-4)
        opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
        for obs, ret in loader:
            opt_critic.zero_grad(set_to_none=True)
            (critic(obs).squeeze(-1) - ret).pow(2).mean().backward()
            opt_critic.step()
            opt_actor.zero_grad(set_to_none=True)
            (-critic(actor(obs)).mean()).backward()
            opt_actor.step()
    """
    check(src, {RULE})


def test_a_clear_that_cannot_be_placed_keeps_the_rule_silent():
    src = """
    import torch

    class Pair(torch.nn.Module):
        def __init__(self, enc, dec):
            super().__init__()
            self.enc, self.dec = enc, dec

    def train(pair, loader):
        opt_enc = torch.optim.SGD(pair.enc.parameters(), lr=0.1)
        opt_dec = torch.optim.SGD(pair.dec.parameters(), lr=0.1)
        for x, _ in loader:
            pair.zero_grad()
            loss = (pair.dec(pair.enc(x)) - x).pow(2).mean()
            loss.backward()
            opt_enc.step()
            opt_dec.step()

    def train_one_optimizer(model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            model.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    """
    check(src, {RULE})
