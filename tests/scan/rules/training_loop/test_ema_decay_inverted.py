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
