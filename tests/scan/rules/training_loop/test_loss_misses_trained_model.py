"""The ``loss-misses-trained-model`` rule (``mlsleuth/scan/rules/training_loop/loss_misses_trained_model.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

RULE = {"loss-misses-trained-model"}


def test_generator_loss_on_detached_fake_in_a_plain_loop():
    src = """
        import torch

        def train(netG, netD, loader, criterion, nz=64):
            optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
            optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
            for real in loader:
                noise = torch.randn(real.size(0), nz)
                fake = netG(noise)
                netD.zero_grad()
                errD = criterion(netD(real), torch.ones(real.size(0))) + criterion(netD(fake.detach()), torch.zeros(real.size(0)))
                errD.backward()
                optimizerD.step()
                netG.zero_grad()
                output = netD(fake.detach())  # expect: loss-misses-trained-model
                errG = criterion(output, torch.ones(real.size(0)))
                errG.backward()
                optimizerG.step()
        """
    check(src, RULE)
    (f,) = messages(src, "loss-misses-trained-model")
    assert "netG" in f.message and "fake.detach()" in f.message


def test_lightning_optimizer_idx_branch_adversarial_term():
    check(
        """
        import torch
        import torch.nn.functional as F
        import pytorch_lightning as pl

        class Pix2Pix(pl.LightningModule):
            def __init__(self, gen, disc, l1_weight=100.0):
                super().__init__()
                self.gen = gen
                self.disc = disc
                self.l1_weight = l1_weight

            def configure_optimizers(self):
                opt_g = torch.optim.Adam(self.gen.parameters(), lr=2e-4)
                opt_d = torch.optim.Adam(self.disc.parameters(), lr=2e-4)
                return [opt_g, opt_d], []

            def training_step(self, batch, batch_idx, optimizer_idx):
                src, tgt = batch
                fake = self.gen(src)
                if optimizer_idx == 0:
                    pred = self.disc(torch.cat([src, fake.detach()], 1))  # expect: loss-misses-trained-model
                    adv = F.binary_cross_entropy_with_logits(pred, torch.ones_like(pred))
                    loss = adv + self.l1_weight * F.l1_loss(fake, tgt)
                    return loss
                real = self.disc(torch.cat([src, tgt], 1))
                fake_pred = self.disc(torch.cat([src, fake.detach()], 1))
                return F.binary_cross_entropy_with_logits(real, torch.ones_like(real)) + \\
                    F.binary_cross_entropy_with_logits(fake_pred, torch.zeros_like(fake_pred))
        """,
        RULE,
    )


def test_encoder_optimizer_steps_on_a_loss_through_detached_features():
    check(
        """
        import torch

        def finetune(encoder, classifier, loader, epochs=3):
            opt = torch.optim.SGD(encoder.parameters(), lr=1e-3)
            for _ in range(epochs):
                for tokens, labels in loader:
                    feats = encoder(tokens).detach()  # expect: loss-misses-trained-model
                    logits = classifier(feats)
                    loss = torch.nn.functional.cross_entropy(logits, labels)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
        """,
        RULE,
    )


def test_actor_term_through_detached_action_with_amp():
    check(
        """
        import torch

        class DDPGAgent:
            def __init__(self, actor, critic):
                self.actor = actor
                self.critic = critic
                self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-4)
                self.scaler = torch.cuda.amp.GradScaler()

            def learn(self, buffer, steps):
                for _ in range(steps):
                    obs = buffer.sample()
                    with torch.no_grad():
                        action = self.actor(obs)  # expect: loss-misses-trained-model
                    actor_loss = -self.critic(obs, action).mean()
                    self.actor_opt.zero_grad()
                    self.scaler.scale(actor_loss).backward()
                    self.scaler.step(self.actor_opt)
                    self.scaler.update()
        """,
        RULE,
    )


def test_vocoder_feature_matching_term_through_helper_and_data():
    check(
        """
        import torch

        def feature_matching(real_feats, fake_feats):
            return sum((r - f).abs().mean() for r, f in zip(real_feats, fake_feats))

        class VocoderTrainer:
            def __init__(self, generator, mpd):
                self.generator = generator
                self.mpd = mpd
                self.opt_g = torch.optim.AdamW(self.generator.parameters(), lr=2e-4)

            def step(self, loader):
                for mel, wav in loader:
                    fake = self.generator(mel)
                    _, real_feats = self.mpd(wav)
                    _, fake_feats = self.mpd(fake.data)  # expect: loss-misses-trained-model
                    loss_fm = feature_matching(real_feats, fake_feats)
                    loss_mel = (fake - wav).abs().mean()
                    loss = loss_mel + 2.0 * loss_fm
                    self.opt_g.zero_grad()
                    loss.backward()
                    self.opt_g.step()
        """,
        RULE,
    )


def test_tabular_autoencoder_step_on_decoder_of_detached_codes():
    check(
        """
        import torch

        def fit(encoder, decoder, loader):
            opt_enc = torch.optim.Adam(encoder.parameters())
            for x in loader:
                z = encoder(x)
                recon = decoder(z.detach())  # expect: loss-misses-trained-model
                loss = torch.nn.functional.mse_loss(recon, x)
                opt_enc.zero_grad()
                loss.backward()
                opt_enc.step()
        """,
        RULE,
    )


# -- clean look-alikes -----------------------------------------------------------------------------


def test_correct_gan_detaches_only_in_the_discriminator_step():
    check(
        """
        import torch

        def train(netG, netD, loader, criterion, nz=64):
            optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
            optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
            for real in loader:
                fake = netG(torch.randn(real.size(0), nz))
                optimizerD.zero_grad()
                errD = criterion(netD(real), torch.ones(real.size(0))) + criterion(netD(fake.detach()), torch.zeros(real.size(0)))
                errD.backward()
                optimizerD.step()
                optimizerG.zero_grad()
                errG = criterion(netD(fake), torch.ones(real.size(0)))
                errG.backward()
                optimizerG.step()
        """,
        RULE,
    )


def test_lightning_branches_in_the_right_order():
    check(
        """
        import torch
        import torch.nn.functional as F
        import pytorch_lightning as pl

        class GAN(pl.LightningModule):
            def __init__(self, gen, disc):
                super().__init__()
                self.gen = gen
                self.disc = disc

            def configure_optimizers(self):
                return [torch.optim.Adam(self.gen.parameters()), torch.optim.Adam(self.disc.parameters())]

            def training_step(self, batch, batch_idx, optimizer_idx):
                fake = self.gen(batch)
                if optimizer_idx == 1:
                    pred = self.disc(fake.detach())
                    return F.softplus(pred).mean() + F.softplus(-self.disc(batch)).mean()
                return F.softplus(-self.disc(fake)).mean()
        """,
        RULE,
    )


def test_distillation_and_byol_targets_are_detached_on_purpose():
    check(
        """
        import torch
        import torch.nn.functional as F

        def distill(student, teacher, online, predictor, target_net, loader):
            opt = torch.optim.Adam(student.parameters())
            opt2 = torch.optim.Adam(list(online.parameters()) + list(predictor.parameters()))
            for x, x2 in loader:
                soft = teacher(x).detach()
                kd = F.kl_div(F.log_softmax(student(x), -1), F.softmax(soft, -1), reduction="batchmean")
                opt.zero_grad()
                kd.backward()
                opt.step()
                p = predictor(online(x))
                z = target_net(x2).detach()
                byol = 2 - 2 * F.cosine_similarity(p, z, dim=-1).mean()
                opt2.zero_grad()
                byol.backward()
                opt2.step()
        """,
        RULE,
    )


def test_one_optimizer_over_actor_and_critic():
    check(
        """
        import torch
        import itertools

        def update(actor, critic, loader):
            opt = torch.optim.Adam(itertools.chain(actor.parameters(), critic.parameters()))
            for obs, ret in loader:
                action = actor(obs)
                q = critic(obs, action.detach())
                critic_loss = (q - ret).pow(2).mean()
                actor_loss = -critic(obs, action).mean()
                loss = critic_loss + actor_loss
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_optimizer_over_a_parameter_list_it_cannot_name_stays_silent():
    check(
        """
        import torch

        def train(encoder, classifier, params, loader):
            opt = torch.optim.Adam(params)
            for x, y in loader:
                feats = encoder(x).detach()
                loss = torch.nn.functional.cross_entropy(classifier(feats), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_frozen_backbone_with_head_optimizer():
    check(
        """
        import torch

        def linear_probe(backbone, head, loader):
            opt = torch.optim.SGD(head.parameters(), lr=0.1)
            for x, y in loader:
                with torch.no_grad():
                    feats = backbone(x)
                loss = torch.nn.functional.cross_entropy(head(feats.detach()), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_wrapped_model_called_through_its_wrapper_is_live():
    check(
        """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        def train(model, ema, loader, rank):
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            ddp_model = DDP(model, device_ids=[rank])
            for x in loader:
                with torch.no_grad():
                    anchor = model(x)
                loss = (ddp_model(x) - anchor.detach()).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )
