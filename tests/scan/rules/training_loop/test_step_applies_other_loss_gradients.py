"""The ``step-applies-other-loss-gradients`` rule (``mlsleuth/scan/rules/training_loop/step_applies_other_loss_gradients.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = "step-applies-other-loss-gradients"


# -- positives ----------------------------------------------------------------------------------------------------


def test_gan_generator_loss_first_leaves_gradients_in_the_discriminator():
    src = """
    import torch
    import torch.nn.functional as F

    def train(G, D, loader, nz, epochs):
        opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
        for epoch in range(epochs):
            for real, _ in loader:
                opt_g.zero_grad()
                opt_d.zero_grad()
                fake = G(torch.randn(real.size(0), nz))
                pred = D(fake)
                loss_g = F.binary_cross_entropy_with_logits(pred, torch.ones_like(pred))
                loss_g.backward()
                opt_g.step()
                real_pred, fake_pred = D(real), D(fake.detach())
                loss_d = F.binary_cross_entropy_with_logits(real_pred, torch.ones_like(real_pred)) + \\
                    F.binary_cross_entropy_with_logits(fake_pred, torch.zeros_like(fake_pred))
                loss_d.backward()  # expect: step-applies-other-loss-gradients
                opt_d.step()
    """
    check(src, {RULE})
    [finding] = findings(src, RULE)
    assert "`D`" in finding.message and "nothing clears opt_d's gradients" in finding.message and "later in this iteration" in finding.message


def test_ddpg_actor_loss_through_critic_with_zero_grad_after_step():
    # each optimizer is cleared only after its own step: the actor's backward fills the critic's gradients, and the
    # critic's next step (one iteration later) adds its own loss's gradients to them
    src = """
    import torch
    import torch.nn.functional as F

    class Agent:
        def __init__(self, actor, critic, buffer, gamma=0.99):
            self.actor = actor
            self.critic = critic
            self.buffer = buffer
            self.gamma = gamma
            self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-4)
            self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

        def learn(self, updates):
            for _ in range(updates):
                s, a, r, s2, done = self.buffer.sample(128)
                with torch.no_grad():
                    target = r + self.gamma * (1 - done) * self.critic(s2, self.actor(s2))
                critic_loss = F.mse_loss(self.critic(s, a), target)
                critic_loss.backward()  # expect: step-applies-other-loss-gradients
                self.critic_opt.step()
                self.critic_opt.zero_grad()
                actor_loss = -self.critic(s, self.actor(s)).mean()
                actor_loss.backward()
                self.actor_opt.step()
                self.actor_opt.zero_grad()
    """
    check(src, {RULE})
    [finding] = findings(src, RULE)
    assert "`self.critic`" in finding.message and "next iteration" in finding.message


def test_linear_probe_loss_reaches_a_separately_optimised_encoder():
    # tabular / NLP: a probe trained on live encoder features before the encoder's own update
    src = """
    import torch
    import torch.nn as nn

    encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32))
    probe = nn.Linear(32, 5)
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.1, momentum=0.9)
    probe_opt = torch.optim.Adam(probe.parameters(), lr=1e-3)
    ce = nn.CrossEntropyLoss()

    for x, x_aug, y in train_loader:
        enc_opt.zero_grad()
        probe_opt.zero_grad()
        probe_loss = ce(probe(encoder(x)), y)
        probe_loss.backward()
        probe_opt.step()
        z1, z2 = encoder(x), encoder(x_aug)
        enc_loss = (z1 - z2).pow(2).sum(1).mean()
        enc_loss.backward()  # expect: step-applies-other-loss-gradients
        enc_opt.step()
    """
    check(src, {RULE})


def test_vocoder_gan_in_a_per_batch_method_called_from_the_loop():
    # audio: the discriminator is cleared right after its step, before the generator's adversarial loss runs through it
    src = """
    import torch
    import torch.nn.functional as F

    class VocoderTrainer:
        def __init__(self, generator, discriminator):
            self.generator = generator
            self.discriminator = discriminator
            self.opt_g = torch.optim.AdamW(self.generator.parameters(), lr=2e-4)
            self.opt_d = torch.optim.AdamW(self.discriminator.parameters(), lr=2e-4)

        def adversarial(self, wav):
            return ((1 - self.discriminator(wav)) ** 2).mean()

        def train_step(self, mel, wav):
            fake = self.generator(mel)
            loss_d = ((1 - self.discriminator(wav)) ** 2).mean() + (self.discriminator(fake.detach()) ** 2).mean()
            loss_d.backward()  # expect: step-applies-other-loss-gradients
            self.opt_d.step()
            self.opt_d.zero_grad()
            loss_g = self.adversarial(fake) + 45 * F.l1_loss(fake, wav)
            loss_g.backward()
            self.opt_g.step()
            self.opt_g.zero_grad()

        def fit(self, loader, epochs):
            for _ in range(epochs):
                for mel, wav in loader:
                    self.train_step(mel, wav)
    """
    check(src, {RULE})


def test_domain_adaptation_step_placed_after_the_other_backward():
    # the domain classifier's step runs after the feature extractor's adversarial backward
    src = """
    import torch
    import torch.nn.functional as F

    def adapt(feat, dom, src_loader, tgt_loader, steps):
        opt_f = torch.optim.SGD(feat.parameters(), lr=1e-2, momentum=0.9)
        opt_c = torch.optim.SGD(dom.parameters(), lr=1e-2, momentum=0.9)
        for (xs, ys), (xt, _) in zip(src_loader, tgt_loader):
            opt_c.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(dom(feat(xs).detach()), torch.ones(len(xs), 1)) + \\
                F.binary_cross_entropy_with_logits(dom(feat(xt).detach()), torch.zeros(len(xt), 1))
            d_loss.backward()
            opt_f.zero_grad()
            confuse = F.binary_cross_entropy_with_logits(dom(feat(xt)), torch.ones(len(xt), 1))
            confuse.backward()
            opt_c.step()  # expect: step-applies-other-loss-gradients
            opt_f.step()
    """
    check(src, {RULE})


def test_generator_gradients_from_an_undetached_discriminator_loss_with_amp():
    # vision, AMP: the generator is cleared before the discriminator's loss, which runs through it live
    src = """
    import torch

    def fit(gen, disc, loader, z_dim):
        scaler = torch.cuda.amp.GradScaler()
        opt_gen = torch.optim.Adam(gen.parameters(), lr=1e-4)
        opt_disc = torch.optim.Adam(disc.parameters(), lr=1e-4)
        for real in loader:
            opt_disc.zero_grad()
            opt_gen.zero_grad()
            with torch.autocast("cuda"):
                fake = gen(torch.randn(real.size(0), z_dim))
                loss_disc = torch.relu(1 - disc(real)).mean() + torch.relu(1 + disc(fake)).mean()
            scaler.scale(loss_disc).backward(retain_graph=True)
            scaler.step(opt_disc)
            with torch.autocast("cuda"):
                loss_gen = -disc(fake).mean()
            scaler.scale(loss_gen).backward()  # expect: step-applies-other-loss-gradients
            scaler.step(opt_gen)
            scaler.update()
    """
    check(src, {RULE})
    [finding] = findings(src, RULE)
    assert "`gen`" in finding.message


def test_loss_through_a_helper_in_another_module(tmp_path):
    check_project(tmp_path, {
        "losses.py": """
            def generator_loss(critic, fake):
                return -critic(fake).mean()
        """,
        "train.py": """
            import torch
            from losses import generator_loss

            def train(gen, critic, loader, n_z):
                g_opt = torch.optim.RMSprop(gen.parameters(), lr=5e-5)
                c_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
                for rows in loader:
                    g_opt.zero_grad()
                    c_opt.zero_grad()
                    g_loss = generator_loss(critic, gen(torch.randn(len(rows), n_z)))
                    g_loss.backward()
                    g_opt.step()
                    c_loss = critic(gen(torch.randn(len(rows), n_z)).detach()).mean() - critic(rows).mean()
                    c_loss.backward()  # expect: step-applies-other-loss-gradients
                    c_opt.step()
        """,
    }, {RULE})


# -- look-alikes that stay silent --------------------------------------------------------------------------------


def test_canonical_dcgan_order_is_fine():
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
            errG = criterion(out, torch.ones_like(out))
            errG.backward()
            optimizerG.step()
    """
    check(src, {RULE})


def test_discriminator_frozen_around_the_generator_loss_is_fine():
    src = """
    import torch
    import torch.nn.functional as F

    def set_requires_grad(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def train(G, D, loader, nz):
        opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
        opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
        for real in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            set_requires_grad(D, False)
            fake = G(torch.randn(real.size(0), nz))
            loss_g = F.softplus(-D(fake)).mean()
            loss_g.backward()
            opt_g.step()
            set_requires_grad(D, True)
            loss_d = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
            loss_d.backward()
            opt_d.step()
    """
    check(src, {RULE})


def test_detached_advantage_and_no_grad_target_are_fine():
    # A2C with separate optimizers: the actor's loss uses the critic's value only detached
    src = """
    import torch
    import torch.nn.functional as F

    def update(policy, value_fn, batches):
        pi_opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
        v_opt = torch.optim.Adam(value_fn.parameters(), lr=1e-3)
        for obs, act, ret in batches:
            pi_opt.zero_grad()
            v_opt.zero_grad()
            with torch.no_grad():
                baseline = value_fn(obs).squeeze(-1)
            adv = (ret - value_fn(obs).squeeze(-1)).detach()
            logp = policy(obs).log_prob(act)
            pi_loss = -(logp * (adv + 0 * baseline)).mean()
            pi_loss.backward()
            pi_opt.step()
            v_loss = F.mse_loss(value_fn(obs).squeeze(-1), ret)
            v_loss.backward()
            v_opt.step()
    """
    check(src, {RULE})


def test_one_loss_stepping_both_optimizers_is_joint_training():
    # seq2seq with an optimizer per half: one loss, both stepped after it
    src = """
    import torch
    import torch.nn as nn

    def train_iters(encoder, decoder, pairs, lr=0.01):
        encoder_optimizer = torch.optim.SGD(encoder.parameters(), lr=lr)
        decoder_optimizer = torch.optim.SGD(decoder.parameters(), lr=lr)
        criterion = nn.NLLLoss()
        for src, tgt in pairs:
            encoder_optimizer.zero_grad()
            decoder_optimizer.zero_grad()
            hidden = encoder(src)
            out = decoder(tgt[:-1], hidden)
            loss = criterion(out.view(-1, out.size(-1)), tgt[1:].view(-1))
            loss.backward()
            encoder_optimizer.step()
            decoder_optimizer.step()
    """
    check(src, {RULE})


def test_set_to_none_right_before_each_backward_is_fine():
    src = """
    import torch
    import torch.nn.functional as F

    def train(G, D, loader, nz):
        opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
        opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
        for real in loader:
            fake = G(torch.randn(real.size(0), nz))
            opt_g.zero_grad(set_to_none=True)
            loss_g = F.softplus(-D(fake)).mean()
            loss_g.backward()
            opt_g.step()
            opt_d.zero_grad(set_to_none=True)
            loss_d = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
            loss_d.backward()
            opt_d.step()
    """
    check(src, {RULE})


def test_shared_trunk_trained_by_both_losses_is_fine():
    src = """
    import itertools
    import torch

    def train(trunk, actor_head, critic_head, batches):
        actor_opt = torch.optim.Adam(itertools.chain(trunk.parameters(), actor_head.parameters()), lr=3e-4)
        critic_opt = torch.optim.Adam(itertools.chain(trunk.parameters(), critic_head.parameters()), lr=1e-3)
        for obs, act, ret in batches:
            h = trunk(obs)
            v = critic_head(h).squeeze(-1)
            actor_loss = -(actor_head(h).log_prob(act) * (ret - v).detach()).mean()
            actor_loss.backward(retain_graph=True)
            actor_opt.step()
            actor_opt.zero_grad()
            critic_loss = (ret - v).pow(2).mean()
            critic_loss.backward()
            critic_opt.step()
            critic_opt.zero_grad()
    """
    check(src, {RULE})


def test_lightning_manual_optimisation_with_toggle_is_fine():
    src = """
    import torch
    import lightning as L

    class GAN(L.LightningModule):
        def __init__(self, generator, discriminator):
            super().__init__()
            self.generator = generator
            self.discriminator = discriminator
            self.automatic_optimization = False
            self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4)
            self.opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4)

        def training_step(self, batch):
            real, z = batch
            self.toggle_optimizer(self.opt_g)
            self.opt_g.zero_grad()
            self.opt_d.zero_grad()
            g_loss = -self.discriminator(self.generator(z)).mean()
            self.manual_backward(g_loss)
            self.opt_g.step()
            self.untoggle_optimizer(self.opt_g)
            d_loss = self.discriminator(self.generator(z).detach()).mean() - self.discriminator(real).mean()
            self.manual_backward(d_loss)
            self.opt_d.step()
    """
    check(src, {RULE})


def test_wgan_critic_loop_cleared_before_each_critic_step_is_fine():
    src = """
    import torch

    def train(G, C, loader, n_critic, nz):
        opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
        opt_c = torch.optim.RMSprop(C.parameters(), lr=5e-5)
        for real in loader:
            for _ in range(n_critic):
                opt_c.zero_grad()
                loss_c = C(G(torch.randn(real.size(0), nz)).detach()).mean() - C(real).mean()
                loss_c.backward()
                opt_c.step()
            opt_g.zero_grad()
            loss_g = -C(G(torch.randn(real.size(0), nz))).mean()
            loss_g.backward()
            opt_g.step()
    """
    check(src, {RULE})


def test_an_optimizer_never_cleared_is_left_to_zero_grad_misses_an_optimizer():
    src = """
    import torch

    def fit(actor, critic, loader):
        opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-4)
        opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
        for obs, ret in loader:
            opt_critic.zero_grad()
            value_loss = (critic(obs).squeeze(-1) - ret).pow(2).mean()
            value_loss.backward()
            opt_critic.step()
            policy_loss = -critic(actor(obs)).mean()
            policy_loss.backward()
            opt_actor.step()
    """
    check(src, {RULE})


def test_updates_alternating_by_iteration_each_cleared_first_are_fine():
    src = """
    import torch

    def train(enc, dec, disc, loader):
        opt_ae = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)
        opt_disc = torch.optim.Adam(disc.parameters(), lr=1e-4)
        for step, x in enumerate(loader):
            if step % 2 == 0:
                opt_ae.zero_grad()
                z = enc(x)
                loss = (dec(z) - x).pow(2).mean() - 0.01 * disc(z).mean()
                loss.backward()
                opt_ae.step()
            else:
                opt_disc.zero_grad()
                loss = disc(enc(x).detach()).mean() - disc(torch.randn_like(enc(x))).mean()
                loss.backward()
                opt_disc.step()
    """
    check(src, {RULE})


def test_image_translation_methods_without_freezing_the_discriminator():
    # vision, a pix2pix-style model class: the generator's backward runs first and fills the discriminator's gradients
    src = """
    import torch
    import torch.nn as nn

    class Pix2Pix:
        def __init__(self, netG, netD):
            self.netG = netG
            self.netD = netD
            self.gan_loss = nn.MSELoss()
            self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
            self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)

        def backward_G(self, real_A, real_B, fake_B):
            pred_fake = self.netD(torch.cat((real_A, fake_B), 1))
            self.loss_G = self.gan_loss(pred_fake, torch.ones_like(pred_fake)) + 100 * (fake_B - real_B).abs().mean()
            self.loss_G.backward()

        def backward_D(self, real_A, real_B, fake_B):
            pred_fake = self.netD(torch.cat((real_A, fake_B), 1).detach())
            pred_real = self.netD(torch.cat((real_A, real_B), 1))
            self.loss_D = 0.5 * (self.gan_loss(pred_fake, torch.zeros_like(pred_fake))
                                 + self.gan_loss(pred_real, torch.ones_like(pred_real)))
            self.loss_D.backward()  # expect: step-applies-other-loss-gradients

        def optimize_parameters(self, real_A, real_B):
            fake_B = self.netG(real_A)
            self.optimizer_G.zero_grad()
            self.optimizer_D.zero_grad()
            self.backward_G(real_A, real_B, fake_B)
            self.optimizer_G.step()
            self.backward_D(real_A, real_B, fake_B)
            self.optimizer_D.step()
    """
    check(src, {RULE})


def test_optimizers_and_networks_passed_to_a_training_function():
    # the caller builds the optimizers; the training function sees the networks under other names
    src = """
    import torch

    def train_epoch(gen, disc, g_opt, d_opt, loader, nz):
        for real in loader:
            d_opt.zero_grad()
            g_opt.zero_grad()
            fake = gen(torch.randn(real.size(0), nz))
            g_loss = -disc(fake).mean()
            g_loss.backward()
            g_opt.step()
            d_loss = disc(fake.detach()).mean() - disc(real).mean()
            d_loss.backward()  # expect: step-applies-other-loss-gradients
            d_opt.step()

    def main(loader):
        netG, netD = Generator(), Critic()
        opt_g = torch.optim.Adam(netG.parameters(), lr=1e-4)
        opt_d = torch.optim.Adam(netD.parameters(), lr=1e-4)
        for epoch in range(10):
            train_epoch(netG, netD, opt_g, opt_d, loader, 128)
    """
    check(src, {RULE})
    [finding] = findings(src, RULE)
    assert "`disc`" in finding.message


def test_undetached_fake_with_the_generator_cleared_before_its_own_backward_is_fine():
    # the discriminator's loss reaches the generator too, but the generator's zero_grad comes after it: only waste
    src = """
    import torch

    class Trainer:
        def __init__(self, G, D):
            self.G, self.D = G, D
            self.opt_G = torch.optim.Adam(self.G.parameters(), lr=2e-4)
            self.opt_D = torch.optim.Adam(self.D.parameters(), lr=2e-4)

        def fit(self, loader, nz):
            for real in loader:
                fake = self.G(torch.randn(real.size(0), nz))
                self.opt_D.zero_grad()
                loss_D = torch.relu(1 - self.D(real)).mean() + torch.relu(1 + self.D(fake)).mean()
                loss_D.backward(retain_graph=True)
                self.opt_D.step()
                self.opt_G.zero_grad()
                loss_G = -self.D(fake).mean()
                loss_G.backward()
                self.opt_G.step()
    """
    check(src, {RULE})


def test_same_code_without_the_generator_clear_in_between_flags():
    # the twin of the look-alike above, with the generator cleared at the top of the iteration instead
    src = """
    import torch

    class Trainer:
        def __init__(self, G, D):
            self.G, self.D = G, D
            self.opt_G = torch.optim.Adam(self.G.parameters(), lr=2e-4)
            self.opt_D = torch.optim.Adam(self.D.parameters(), lr=2e-4)

        def fit(self, loader, nz):
            for real in loader:
                self.opt_G.zero_grad()
                fake = self.G(torch.randn(real.size(0), nz))
                self.opt_D.zero_grad()
                loss_D = torch.relu(1 - self.D(real)).mean() + torch.relu(1 + self.D(fake)).mean()
                loss_D.backward(retain_graph=True)
                self.opt_D.step()
                loss_G = -self.D(fake).mean()
                loss_G.backward()  # expect: step-applies-other-loss-gradients
                self.opt_G.step()
    """
    check(src, {RULE})


def test_critic_frozen_in_place_around_the_actor_loss_is_fine():
    src = """
    import torch

    def learn(actor, critic, batches):
        actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-4)
        critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
        for s, a, y in batches:
            critic_loss = (critic(s, a) - y).pow(2).mean()
            critic_loss.backward()
            critic_opt.step()
            critic_opt.zero_grad()
            critic.requires_grad_(False)
            actor_loss = -critic(s, actor(s)).mean()
            actor_loss.backward()
            actor_opt.step()
            actor_opt.zero_grad()
            critic.requires_grad_(True)
    """
    check(src, {RULE})


def test_lightning_manual_optimisation_cleared_after_each_step_without_toggling():
    # the optimizers come from configure_optimizers; each is cleared only after its own step, and nothing
    # switches the discriminator off while the generator's loss runs through it
    src = """
    import torch
    import lightning as L

    class GAN(L.LightningModule):
        def __init__(self, generator, discriminator):
            super().__init__()
            self.generator = generator
            self.discriminator = discriminator
            self.automatic_optimization = False

        def configure_optimizers(self):
            opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4)
            opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4)
            return [opt_g, opt_d]

        def training_step(self, batch, batch_idx):
            real, z = batch
            opt_g, opt_d = self.optimizers()
            fake = self.generator(z)
            d_loss = torch.relu(1 - self.discriminator(real)).mean() + torch.relu(1 + self.discriminator(fake.detach())).mean()
            self.manual_backward(d_loss)  # expect: step-applies-other-loss-gradients
            opt_d.step()
            opt_d.zero_grad()
            g_loss = -self.discriminator(fake).mean()
            self.manual_backward(g_loss)
            opt_g.step()
            opt_g.zero_grad()
    """
    check(src, {RULE})


def test_optimizers_over_parameter_methods_and_a_loss_method_of_the_model():
    # NLP-style VAE: the optimizers take `model.encoder_params()` and the reconstruction loss is a method of the
    # model that runs the encoder too; each optimizer is cleared only after its own step, so each network also
    # steps with the other one's reconstruction gradient (counted twice)
    src = """
    import torch
    import torch.nn as nn

    class SentenceVAE(nn.Module):
        def __init__(self, vocab, dim):
            super().__init__()
            self.encoder = nn.GRU(dim, dim, batch_first=True)
            self.decoder = nn.Linear(dim, vocab)

        def encoder_params(self):
            return self.encoder.parameters()

        def decoder_params(self):
            return self.decoder.parameters()

        def code(self, emb):
            return self.encoder(emb)[1][-1]

        def reconstruction(self, emb, tokens):
            logits = self.decoder(self.code(emb))
            return nn.functional.cross_entropy(logits, tokens[:, 0])

    model = SentenceVAE(1000, 64)
    opt_dec = torch.optim.Adam(model.decoder_params(), lr=1e-3)
    opt_enc = torch.optim.Adam(model.encoder_params(), lr=1e-3)
    for emb, tokens in loader:
        rec = model.reconstruction(emb, tokens)
        rec.backward()  # expect: step-applies-other-loss-gradients
        opt_dec.step()
        opt_dec.zero_grad()
        elbo = model.reconstruction(emb, tokens) + model.code(emb).pow(2).mean()
        elbo.backward()  # expect: step-applies-other-loss-gradients
        opt_enc.step()
        opt_enc.zero_grad()
    """
    check(src, {RULE})


def test_a_flag_that_detaches_inside_the_model_method_is_followed():
    # the probe's loss asks the model for detached features (frozen=True): the encoder gets nothing from it
    src = """
    import torch
    import torch.nn as nn

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(40, 64), nn.ReLU())
            self.projector = nn.Linear(64, 16)

        def features(self, x, frozen=False):
            h = self.encoder(x)
            if frozen:
                h = h.detach()
            return h

    model = Backbone()
    probe = nn.Linear(64, 3)
    enc_opt = torch.optim.SGD(model.encoder.parameters(), lr=0.05)
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.05)
    for x, x2, y in loader:
        enc_opt.zero_grad()
        probe_opt.zero_grad()
        probe_loss = nn.functional.cross_entropy(probe(model.features(x, frozen=True)), y)
        probe_loss.backward()
        probe_opt.step()
        ssl_loss = (model.features(x) - model.features(x2)).pow(2).mean()
        ssl_loss.backward()
        enc_opt.step()
    """
    check(src, {RULE})
    # the same loop without the flag leaks the probe's gradient into the encoder
    check(src.replace("frozen=True", "frozen=False").replace("ssl_loss.backward()", "ssl_loss.backward()  # expect: " + RULE), {RULE})
