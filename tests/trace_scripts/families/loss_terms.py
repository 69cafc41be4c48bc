"""Several optimizers, several losses: which parameters each backward reaches (argv picks the loop).

Bugs: 'gan_adv_detached' (the generator's adversarial term scores fake.detach()), 'gan_hinge_detached' (the same with
a hinge term and no loss function), 'encoder_leak' (the decoder loss's gradient stays in the encoder, stepped on
after its own loss), 'gan_g_leak' (the discriminator's loss reaches the generator, whose zero_grad runs before it),
'actor_trunk_leak' (the actor loss's gradient stays in a shared trunk the critic's optimizer steps), 'gan_d_leak'
(zero_grad after each step: the generator's loss leaves its gradient in D, which D's next step uses).
Healthy: 'gan_plain', 'gan_frozen_d', 'dcgan', 'pix2pix', 'lightning_gan', 'wgan_critic', 'sac', 'a2c_shared', 'distill',
'constant_term', 'probe', 'accumulate', 'slow_second', 'encoder_cleared', 'module_zero_grad'.
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "gan_adv_detached"
torch.manual_seed(0)
STEPS = 40


def mlp(i, o, h=16):
    return nn.Sequential(nn.Linear(i, h), nn.ReLU(), nn.Linear(h, o))


def data(n=32):
    x = torch.randn(n, 8)
    return x, torch.tanh(x[:, :4] * 2)


def set_requires_grad(net, flag):
    for p in net.parameters():
        p.requires_grad_(flag)


def gan(kind):
    G, D = mlp(8, 4), mlp(8 + 4, 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    for _ in range(STEPS):
        x, y = data()
        fake = G(x)
        # discriminator
        if kind == "gan_g_leak":
            opt_d.zero_grad()
            opt_g.zero_grad()  # too early: the discriminator's loss below reaches G (no detach)
            d_fake = D(torch.cat([x, fake], 1))
        else:
            opt_d.zero_grad()
            d_fake = D(torch.cat([x, fake.detach()], 1))
        d_real = D(torch.cat([x, y], 1))
        loss_d = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        loss_d.backward(retain_graph=kind == "gan_g_leak")
        opt_d.step()
        # generator
        if kind != "gan_g_leak":
            opt_g.zero_grad()
        if kind == "pix2pix":
            set_requires_grad(D, False)
        scored = fake.detach() if kind in ("gan_adv_detached", "gan_hinge_detached") else fake
        d_out = D(torch.cat([x, scored], 1))
        if kind == "gan_hinge_detached":
            adv = -d_out.mean()
        else:
            adv = nn.BCEWithLogitsLoss()(d_out, torch.ones_like(d_out))
        loss_g = adv + 10.0 * F.l1_loss(fake, y)
        loss_g.backward()
        opt_g.step()
        if kind == "pix2pix":
            set_requires_grad(D, True)


def gan_zero_after_step(kind):
    """zero_grad right after each step; the generator's loss reaches D unless D is frozen for the generator's update."""
    G, D = mlp(8, 4), mlp(4, 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    crit = nn.BCEWithLogitsLoss()
    for _ in range(STEPS):
        x, y = data()
        fake = G(x)
        real_out, fake_out = D(y), D(fake.detach())
        loss_d = crit(real_out, torch.ones_like(real_out)) + crit(fake_out, torch.zeros_like(fake_out))
        loss_d.backward()
        opt_d.step()
        opt_d.zero_grad()
        if kind == "gan_frozen_d":
            D.requires_grad_(False)
        out = D(fake)
        loss_g = crit(out, torch.ones_like(out)) + F.l1_loss(fake, y)
        loss_g.backward()
        opt_g.step()
        opt_g.zero_grad()
        D.requires_grad_(True)


def dcgan():
    """The PyTorch DCGAN example's order: netD.zero_grad, two D backwards, step; netG.zero_grad, G backward, step."""
    G, D = mlp(8, 4), mlp(4, 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    crit = nn.BCEWithLogitsLoss()
    for _ in range(STEPS):
        x, y = data()
        D.zero_grad()
        out = D(y)
        crit(out, torch.ones_like(out)).backward()
        fake = G(x)
        out = D(fake.detach())
        crit(out, torch.zeros_like(out)).backward()
        opt_d.step()
        G.zero_grad()
        out = D(fake)
        err_g = crit(out, torch.ones_like(out)) + 0.0 * F.mse_loss(fake, y).detach()  # a logged constant added in
        err_g.backward()
        opt_g.step()


def lightning_gan():
    """One backward site for both optimizers (training_step(batch, optimizer_idx)), each zeroed before its loss."""
    G, D = mlp(8, 4), mlp(4, 1)
    opts = [torch.optim.Adam(G.parameters(), lr=1e-3), torch.optim.Adam(D.parameters(), lr=1e-3)]

    def training_step(x, y, idx):
        fake = G(x)
        if idx == 0:
            out = D(fake)
            return F.mse_loss(out, torch.ones_like(out)) + F.l1_loss(fake, y)
        real, fk = D(y), D(fake.detach())
        return 0.5 * (F.mse_loss(real, torch.ones_like(real)) + F.mse_loss(fk, torch.zeros_like(fk)))

    for _ in range(STEPS):
        x, y = data()
        for idx, opt in enumerate(opts):
            opt.zero_grad()
            loss = training_step(x, y, idx)
            loss.backward()
            opt.step()


def wgan_critic():
    """Five critic steps per generator step, gradient penalty, hinge-free WGAN losses written by hand."""
    G, D = mlp(8, 4), mlp(4, 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
    for it in range(STEPS * 5):
        x, y = data()
        fake = G(x).detach()
        eps = torch.rand(y.size(0), 1)
        mix = (eps * y + (1 - eps) * fake).requires_grad_(True)
        grad = torch.autograd.grad(D(mix).sum(), mix, create_graph=True)[0]
        gp = ((grad.norm(dim=1) - 1) ** 2).mean()
        loss_d = D(fake).mean() - D(y).mean() + 10 * gp
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        if it % 5 == 4:
            loss_g = -D(G(x)).mean()
            opt_g.zero_grad()
            loss_g.backward()
            opt_g.step()


def sac():
    """Actor, twin critic and temperature, each with its own optimizer; the actor loss reaches the critic."""
    actor, critic = mlp(8, 2), mlp(8 + 2, 2)
    log_alpha = torch.zeros(1, requires_grad=True)
    opt_a = torch.optim.Adam(actor.parameters(), lr=1e-3)
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
    opt_t = torch.optim.Adam([log_alpha], lr=1e-3)
    for _ in range(STEPS):
        s, _y = data()
        a = torch.randn(s.size(0), 2)
        target = torch.randn(s.size(0), 1)
        q = critic(torch.cat([s, a], 1))
        q_loss = F.mse_loss(q[:, :1], target) + F.mse_loss(q[:, 1:], target)
        opt_c.zero_grad()
        q_loss.backward()
        opt_c.step()
        out = actor(s)
        logp = -(out ** 2).sum(1, keepdim=True)
        q_pi = critic(torch.cat([s, torch.tanh(out)], 1)).min(1, keepdim=True).values
        alpha = log_alpha.exp().detach()
        actor_loss = (alpha * logp).mean() - q_pi.mean()
        opt_a.zero_grad()
        actor_loss.backward()
        opt_a.step()
        alpha_loss = -(log_alpha * (logp.detach() + 2.0)).mean()
        opt_t.zero_grad()
        alpha_loss.backward()
        opt_t.step()


def distill():
    """A frozen teacher under no_grad, a student trunk and head with their own optimizers, one summed loss."""
    teacher, trunk, head = mlp(8, 5), mlp(8, 16), nn.Linear(16, 5)
    opt_trunk = torch.optim.SGD(trunk.parameters(), lr=1e-2)
    opt_head = torch.optim.Adam(head.parameters(), lr=1e-3)
    for _ in range(STEPS):
        x, _y = data()
        labels = torch.randint(0, 5, (x.size(0),))
        with torch.no_grad():
            t_logits = teacher(x)
        logits = head(trunk(x))
        kd = F.kl_div(F.log_softmax(logits, 1), F.softmax(t_logits, 1), reduction="batchmean")
        loss = F.cross_entropy(logits, labels) + 0.5 * kd
        opt_trunk.zero_grad()
        opt_head.zero_grad()
        loss.backward()
        opt_trunk.step()
        opt_head.step()


def constant_term():
    """Encoder and decoder stepped together; a term computed on detached values is added for logging."""
    enc, dec = mlp(8, 4), mlp(4, 8)
    opt_e = torch.optim.Adam(enc.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(dec.parameters(), lr=1e-3)
    for _ in range(STEPS):
        x, _y = data()
        z = enc(x)
        recon = dec(z)
        logged = F.mse_loss(dec(z.detach()).detach(), x)
        loss = F.mse_loss(recon, x) + 1e-3 * z.pow(2).mean() + 0.0 * logged
        opt_e.zero_grad()
        opt_d.zero_grad()
        loss.backward()
        opt_e.step()
        opt_d.step()


def probe():
    """A linear probe on detached features, in the same loss, stepped by its own optimizer after the same backward."""
    enc, head, probe_head = mlp(8, 16), nn.Linear(16, 4), nn.Linear(16, 4)
    opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-3)
    opt_probe = torch.optim.SGD(probe_head.parameters(), lr=1e-2)
    for _ in range(STEPS):
        x, y = data()
        feat = enc(x)
        loss = F.mse_loss(head(feat), y) + F.mse_loss(probe_head(feat.detach()), y)
        opt.zero_grad()
        opt_probe.zero_grad()
        loss.backward()
        opt.step()
        opt_probe.step()


def accumulate():
    """A GAN with two micro-batches accumulated per step for each network."""
    G, D = mlp(8, 4), mlp(4, 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    crit = nn.BCEWithLogitsLoss()
    for _ in range(STEPS):
        opt_d.zero_grad()
        fakes = []
        for _k in range(2):
            x, y = data(16)
            fake = G(x)
            fakes.append((x, y, fake))
            real_out, fake_out = D(y), D(fake.detach())
            ((crit(real_out, torch.ones_like(real_out)) + crit(fake_out, torch.zeros_like(fake_out))) / 2).backward()
        opt_d.step()
        opt_g.zero_grad()
        for x, y, fake in fakes:
            out = D(fake)
            ((crit(out, torch.ones_like(out)) + F.l1_loss(fake, y)) / 2).backward()
        opt_g.step()


def slow_second():
    """One summed loss; the second model's optimizer steps every other iteration on the accumulated gradients."""
    a_net, b_net = mlp(8, 4), mlp(8, 4)
    opt_a = torch.optim.SGD(a_net.parameters(), lr=1e-2)
    opt_b = torch.optim.SGD(b_net.parameters(), lr=1e-2)
    for it in range(STEPS):
        x, y = data()
        loss = F.mse_loss(a_net(x), y) + F.mse_loss(b_net(x), y)
        opt_a.zero_grad()
        loss.backward()
        opt_a.step()
        if it % 2 == 1:
            opt_b.step()
            opt_b.zero_grad()


def encoder(kind):
    enc, dec = mlp(8, 4), mlp(4, 8)
    critic = mlp(8, 1).requires_grad_(False)
    opt_enc = torch.optim.Adam(enc.parameters(), lr=1e-3)
    opt_dec = torch.optim.Adam(dec.parameters(), lr=1e-3)
    for _ in range(STEPS):
        x, _y = data()
        # decoder: reconstruction plus a realism score from a fixed critic; reaches the encoder through z
        z = enc(x)
        rec = dec(z)
        loss_dec = F.smooth_l1_loss(rec, x) - 0.1 * critic(rec).mean()
        dec.zero_grad()
        loss_dec.backward()
        opt_dec.step()
        # encoder: its own objective through a fresh forward
        if kind == "encoder_cleared":
            opt_enc.zero_grad()
        elif kind == "module_zero_grad":
            enc.zero_grad()
        z = enc(x)
        loss_enc = F.mse_loss(dec(z), x) + 1e-2 * z.pow(2).mean()
        loss_enc.backward()
        opt_enc.step()
        if kind == "encoder_leak":
            opt_enc.zero_grad()


def a2c_shared():
    """Actor-critic with a shared trunk and one optimizer: policy, value and entropy terms summed."""
    trunk, pi, v = mlp(8, 16), nn.Linear(16, 3), nn.Linear(16, 1)
    opt = torch.optim.Adam([*trunk.parameters(), *pi.parameters(), *v.parameters()], lr=1e-3)
    for _ in range(STEPS):
        s, _y = data()
        ret = torch.randn(s.size(0), 1)
        h = trunk(s)
        logp = F.log_softmax(pi(h), 1)
        value = v(h)
        act = torch.randint(0, 3, (s.size(0),))
        adv = (ret - value).detach()
        entropy = -(logp.exp() * logp).sum(1).mean()
        loss = -(logp.gather(1, act[:, None]) * adv).mean() + 0.5 * F.mse_loss(value, ret) - 0.01 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()


def actor_trunk():
    """A shared trunk trained by the critic's optimizer; the actor loss also reaches it, and nothing clears that."""
    trunk, pi, v = mlp(8, 16), nn.Linear(16, 3), nn.Linear(16, 1)
    opt_actor = torch.optim.Adam(pi.parameters(), lr=1e-3)
    opt_critic = torch.optim.Adam(list(trunk.parameters()) + list(v.parameters()), lr=1e-3)
    for _ in range(STEPS):
        s, _y = data()
        ret = torch.randn(s.size(0), 1)
        opt_actor.zero_grad()
        opt_critic.zero_grad()
        h = trunk(s)
        logp = F.log_softmax(pi(h), 1)
        act = torch.randint(0, 3, (s.size(0),))
        adv = (ret - v(h)).detach()
        actor_loss = -(logp.gather(1, act[:, None]) * adv).mean()
        actor_loss.backward()
        opt_actor.step()
        critic_loss = F.mse_loss(v(trunk(s)), ret)
        critic_loss.backward()
        opt_critic.step()


if mode in ("gan_adv_detached", "gan_hinge_detached", "gan_g_leak", "pix2pix", "gan_plain"):
    gan(mode)
elif mode in ("encoder_leak", "encoder_cleared", "module_zero_grad"):
    encoder(mode)
elif mode in ("gan_d_leak", "gan_frozen_d"):
    gan_zero_after_step(mode)
elif mode == "actor_trunk_leak":
    actor_trunk()
else:
    {"dcgan": dcgan, "lightning_gan": lightning_gan, "wgan_critic": wgan_critic, "sac": sac, "distill": distill,
     "constant_term": constant_term, "probe": probe, "accumulate": accumulate, "slow_second": slow_second,
     "a2c_shared": a2c_shared}[mode]()
