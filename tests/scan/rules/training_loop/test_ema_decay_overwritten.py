"""The ``ema-decay-overwritten`` rule (``mlsleuth/scan/rules/training_loop/ema_decay_overwritten.py``)."""

from __future__ import annotations

from scan.helpers import check

EDO = {"ema-decay-overwritten"}


def test_step_writes_the_warmup_value_back_into_the_setting():
    # the setting passes through a helper of the class that returns 1 - min(self.decay, ramp)
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
                self.decay = self.get_decay(self.optimization_step)  # expect: ema-decay-overwritten
                for s_param, param in zip(self.shadow_params, parameters):
                    s_param.sub_(self.decay * (s_param - param))
        """,
        EDO,
    )


def test_teacher_momentum_clamped_in_place():
    check(
        """
        import torch

        class MeanTeacher:
            def __init__(self, student, teacher, momentum=0.999):
                self.student, self.teacher, self.momentum = student, teacher, momentum

            @torch.no_grad()
            def update(self, step):
                self.momentum = min(self.momentum, 1 - 1 / (step + 1))  # expect: ema-decay-overwritten
                for t, s in zip(self.teacher.parameters(), self.student.parameters()):
                    t.mul_(self.momentum).add_(s, alpha=1 - self.momentum)
        """,
        EDO,
    )


def test_local_or_separate_current_value_stays_silent():
    check(
        """
        import torch

        class EMA:
            def __init__(self, model, decay=0.9999):
                self.decay = decay
                self.cur_decay = 0.0
                self.best = float("inf")
                self.shadow = {k: v.clone() for k, v in model.state_dict().items()}

            def update(self, model, step, loss):
                decay = min(self.decay, (1 + step) / (10 + step))
                self.cur_decay = min(self.decay, (1 + step) / (10 + step))
                self.best = min(self.best, loss)  # a running best, not a share of the average
                self.decay = min(self.decay, 0.9999)  # clamped to a constant: no step in it
                for k, v in model.state_dict().items():
                    self.shadow[k] = self.cur_decay * self.shadow[k] + (1 - self.cur_decay) * v
                    self.shadow[k].mul_(decay).add_(v, alpha=1 - decay)
        """,
        EDO,
    )


def test_max_ratchet_stays_silent():
    check(
        """
        import math

        class Updater:
            def __init__(self, base_tau=0.99):
                self.tau = base_tau

            def update(self, online, target, step, total):
                self.tau = max(self.tau, 1 - (1 - 0.99) * (math.cos(math.pi * step / total) + 1) / 2)
                for o, t in zip(online.parameters(), target.parameters()):
                    t.data = self.tau * t.data + (1 - self.tau) * o.data
        """,
        EDO,
    )
