"""The ``ema-decay-inverted`` rule (``mlsleuth/scan/rules/training_loop/ema_decay_inverted.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

EI = {"ema-decay-inverted"}


def test_mul_add_with_decay_on_the_online_weights():
    check(
        """
        import torch

        @torch.no_grad()
        def update_ema(ema_model, model, decay=0.999):
            for ema_p, p in zip(ema_model.parameters(), model.parameters()):
                ema_p.mul_(1 - decay).add_(p, alpha=decay)  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_decay_from_the_constructor_through_self():
    check(
        """
        import copy
        import torch

        class ModelEma:
            def __init__(self, model, decay):
                self.module = copy.deepcopy(model).eval()
                self.decay = decay

            @torch.no_grad()
            def update(self, model):
                for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                    ema_v.copy_((1.0 - self.decay) * ema_v + self.decay * model_v)  # expect: ema-decay-inverted

        ema = ModelEma(net, decay=0.9998)
        """,
        EI,
    )


def test_momentum_encoder_lerp_and_data_assignment():
    check(
        """
        import torch

        MOMENTUM = 0.99

        class MoCo(torch.nn.Module):
            def __init__(self, q, k, m=0.999):
                super().__init__()
                self.encoder_q, self.encoder_k, self.m = q, k, m

            @torch.no_grad()
            def momentum_update(self):
                for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
                    param_k.data = param_k.data * (1.0 - self.m) + param_q.data * self.m  # expect: ema-decay-inverted

        def teacher_update(student, teacher):
            for s, t in zip(student.parameters(), teacher.parameters()):
                t.lerp_(s, MOMENTUM)  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_message_quotes_the_shares():
    got = findings(
        """
        def update(ema, model):
            d = 0.995
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(1 - d)
                e.add_(d * p.detach())
        """,
        "ema-decay-inverted",
    )
    assert len(got) == 1 and "0.995" in got[0].message and "`e`" in got[0].message


def test_correct_and_unknown_decays_are_fine():
    check(
        """
        import torch

        @torch.no_grad()
        def a(ema_model, model, decay=0.999):
            for ema_p, p in zip(ema_model.parameters(), model.parameters()):
                ema_p.mul_(decay).add_(p, alpha=1 - decay)

        def b(ema_model, model, cfg):
            d = cfg.ema_decay
            for e, p in zip(ema_model.parameters(), model.parameters()):
                e.mul_(1 - d).add_(p, alpha=d)

        def c(target, online, tau=0.005):
            for t, o in zip(target.parameters(), online.parameters()):
                t.data.copy_(tau * o.data + (1.0 - tau) * t.data)
                t.lerp_(o, tau)

        def d(bn_stats, batch_stats, momentum=0.1):
            for r, b in zip(bn_stats.buffers(), batch_stats.buffers()):
                r.mul_(1 - momentum).add_(b, alpha=momentum)

        def hard_sync(target, online):
            for t, o in zip(target.parameters(), online.parameters()):
                t.data.copy_(o.data)
        """,
        EI,
    )


def test_callers_that_disagree_stay_silent():
    check(
        """
        def upd(ema, model, d):
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(1 - d).add_(p, alpha=d)

        upd(ema, model, 0.999)
        upd(ema, model, schedule(step))
        """,
        EI,
    )


def test_decay_from_a_warmup_helper_on_the_new_weights():
    # the decay comes from get_decay(): 0 during warm-up, then a ramp capped by self.decay
    check(
        """
        import torch

        class EMAModel:
            def __init__(self, parameters, decay=0.9999, warmup_steps=0):
                self.shadow_params = [p.clone().detach() for p in parameters]
                self.decay = decay
                self.warmup_steps = warmup_steps
                self.optimization_step = 0

            def get_decay(self, step):
                if step <= self.warmup_steps:
                    return 0.0
                return min(self.decay, (1 + step) / (10 + step))

            @torch.no_grad()
            def step(self, parameters):
                self.optimization_step += 1
                beta = self.get_decay(self.optimization_step)
                for s_param, param in zip(self.shadow_params, parameters):
                    s_param.copy_(beta * param + (1 - beta) * s_param)  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_warmup_ramp_in_a_local_name_settles_at_the_cap():
    # the ramp sits in a local name and the step is a counter (``self.optimization_step += 1``): the share the new
    # weights take settles at 1 - 0.9999, not at the first step's ramp value; the warm-up value of a counter is
    # not a setting
    check(
        """
        import torch

        class EMAModel:
            def __init__(self, parameters, decay=0.9999):
                self.shadow_params = [p.clone().detach() for p in parameters]
                self.decay = decay
                self.optimization_step = 0

            def get_decay(self, optimization_step):
                value = (1 + optimization_step) / (10 + optimization_step)
                return 1 - min(self.decay, value)

            @torch.no_grad()
            def step(self, parameters):
                self.optimization_step += 1
                one_minus_decay = self.get_decay(self.optimization_step)
                for s_param, param in zip(self.shadow_params, parameters):
                    s_param.sub_(one_minus_decay * (s_param - param))

        class Counted:
            def __init__(self, model):
                self.shadow = [p.detach().clone() for p in model.parameters()]
                self.updates = 0

            @torch.no_grad()
            def update(self, model):
                self.updates += 1
                d = self.updates / (self.updates + 1.0)
                for s, p in zip(self.shadow, model.parameters()):
                    s.mul_(d).add_(p, alpha=1 - d)
        """,
        EI,
    )


def test_soft_target_update_with_tau_on_the_target():
    # RL: a Polyak rate read from a tyro dataclass, written on the target network's side
    check(
        """
        from dataclasses import dataclass
        import torch
        import tyro

        @dataclass
        class Args:
            tau: float = 0.005
            gamma: float = 0.99

        args = tyro.cli(Args)
        for global_step in range(1000):
            for param, target_param in zip(qf1.parameters(), qf1_target.parameters()):
                target_param.data.copy_(args.tau * target_param.data + (1 - args.tau) * param.data)  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_running_normaliser_and_dict_shadow_weights():
    # audio features normaliser with a Keras-style momentum, and a name -> tensor shadow dict
    check(
        """
        import torch

        class FeatureNorm(torch.nn.Module):
            def __init__(self, n_mels, momentum=0.99):
                super().__init__()
                self.momentum = momentum
                self.register_buffer("running_mean", torch.zeros(n_mels))

            def forward(self, spec):
                if self.training:
                    batch_mean = spec.mean(dim=(0, 2))
                    self.running_mean = self.momentum * batch_mean + (1 - self.momentum) * self.running_mean  # expect: ema-decay-inverted
                return spec - self.running_mean[None, :, None]

        class Shadow:
            def __init__(self, model, decay=0.999):
                self.decay = decay
                self.shadow = {n: p.detach().clone() for n, p in model.named_parameters()}

            def update(self, model):
                for name, param in model.named_parameters():
                    self.shadow[name] = self.decay * param.data + (1.0 - self.decay) * self.shadow[name]  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_smoothed_loss_carried_by_the_loop():
    # NLP logging: the smoothed loss follows the last batch
    check(
        """
        def train(model, loader, optimizer):
            smooth = 0.0
            for batch in loader:
                loss = model(**batch).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                smooth = 0.98 * loss.item() + 0.02 * smooth  # expect: ema-decay-inverted
            return smooth
        """,
        EI,
    )


def test_step_toward_and_foreach_forms():
    check(
        """
        import torch

        @torch.no_grad()
        def ema_step(ema_params, params, decay=0.9999):
            for s, p in zip(ema_params, params):
                s.sub_(decay * (s - p))  # expect: ema-decay-inverted

        @torch.no_grad()
        def ema_foreach(ema_params, params, decay=0.999):
            torch._foreach_lerp_(ema_params, params, decay)  # expect: ema-decay-inverted

        def moment(exp_avg, grad, beta1=0.9):
            exp_avg *= 1 - beta1
            exp_avg += beta1 * grad  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_lightning_hparams_decay():
    check(
        """
        import copy
        import torch
        import lightning as L

        class Classifier(L.LightningModule):
            def __init__(self, net, lr=1e-3, ema_decay=0.999):
                super().__init__()
                self.save_hyperparameters(ignore=["net"])
                self.net = net
                self.ema = copy.deepcopy(net)

            def on_train_batch_end(self, outputs, batch, batch_idx):
                with torch.no_grad():
                    for e, p in zip(self.ema.parameters(), self.net.parameters()):
                        e.lerp_(p, self.hparams.ema_decay)  # expect: ema-decay-inverted
        """,
        EI,
    )


def test_correct_spellings_stay_silent():
    check(
        """
        from dataclasses import dataclass
        import torch
        import tyro

        @dataclass
        class Args:
            tau: float = 0.005

        args = tyro.cli(Args)

        @torch.no_grad()
        def ema_step(ema_params, params, decay=0.9999):
            one_minus_decay = 1 - decay
            for s, p in zip(ema_params, params):
                s.sub_(one_minus_decay * (s - p))
            torch._foreach_lerp_(ema_params, params, 1.0 - decay)

        for param, target_param in zip(qf.parameters(), qf_target.parameters()):
            target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)

        class BN:
            def __init__(self, momentum=0.1):
                self.momentum = momentum

            def update(self, mean):
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * mean

        def train(loader):
            running_reward = 10
            for ep_reward in loader:
                running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        """,
        EI,
    )


def test_lookalikes_that_are_no_running_average():
    check(
        """
        import torch
        from dataclasses import dataclass
        import tyro

        @dataclass
        class Args:
            tau: float = 1.0

        args = tyro.cli(Args)
        for step in range(100):
            # DQN's hard update: tau = 1 copies the online network on purpose
            for p, t in zip(q.parameters(), q_target.parameters()):
                t.data.copy_(args.tau * p.data + (1.0 - args.tau) * t.data)

        def mix(x, x_flipped):
            lam = 0.95
            x = lam * x_flipped + (1 - lam) * x  # one blend of two images, not a running value
            return x

        def bema(ema, theta, step, lag=10.0, power=0.5, floor=0.0):
            beta = max((lag + step) ** -power, floor)  # BEMA's new-value share, a decaying schedule
            ema.mul_(1 - beta).add_(theta, alpha=beta)

        def overlay(img, masks, color):
            for m in masks:
                img[m] = img[m] * 0.4 + color * 0.6

        def leaky(xs):
            h = 0.0
            for x in xs:
                h = 0.05 * h + x  # a leaky sum, not a convex blend
            return h

        def warmup_only(ema, model):
            d = 0.0
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(d).add_(p, alpha=1 - d)
        """,
        EI,
    )
