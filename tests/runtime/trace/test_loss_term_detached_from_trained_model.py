"""`loss-term-detached-from-trained-model` (trace): a loss term runs another model on a detached output of the
model being trained, so its gradient never reaches that model (a GAN generator's adversarial term on fake.detach())."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "loss-term-detached-from-trained-model"
OPTIMIZERS = [{"index": 0, "type": "Adam", "label": "g", "params": 8, "stepped": True},
              {"index": 1, "type": "Adam", "label": "d", "params": 8, "stepped": True}]


def term(**over):
    """The child's record of one loss term (trace_terms.py), as in the dev GAN case."""
    rec = {"key": "/x/train.py:28|#1|loss:mse_loss@/x/model.py:31", "judged": 11, "good": 0, "bad": 11,
           "path": "/x/train.py", "line": 28,
           "loss": {"label": "mse_loss", "path": "/x/model.py", "line": 31},
           "model": {"label": "d", "path": "/x/model.py", "line": 30},
           "first_bad": {"step": 0, "optimizers_reached": [1], "stepped": [0], "detached_from": ["g"], "params_reached": 8,
                         "other_terms": [{"loss": {"label": "l1_loss", "path": "/x/model.py", "line": 32},
                                          "model": {"label": "g", "path": "/x/model.py", "line": 27}}]}}
    rec.update(over)
    return rec


def data(*terms, leaks=()):
    return {"terms": {"optimizers": OPTIMIZERS, "terms": list(terms), "leaks": list(leaks), "steps_checked": {}}, "script_dir": "/x"}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, data(term()))
    assert hit.location.line == 30 and hit.location.path.endswith("model.py")  # the call that got the detached tensor
    assert "mse_loss" in hit.message and "'g'" in hit.message and "l1_loss" in hit.message
    assert hit.location.module == "d"


def test_not_found_when_the_term_reaches_the_trained_model_on_some_step():
    assert not findings_for(CHECK, data(term(good=3, bad=8)))


def test_not_found_on_a_single_sampled_backward():
    assert not findings_for(CHECK, data(term(bad=1)))


def test_not_found_when_another_optimizer_steps_on_that_gradient():
    leak = {"optimizer": 1, "path": "/x/train.py", "line": 28, "count": 5, "ratios": [0.3] * 5}
    assert not findings_for(CHECK, data(term(), leaks=[leak]))


def test_not_found_when_the_other_optimizer_never_steps():
    opts = [OPTIMIZERS[0], {**OPTIMIZERS[1], "stepped": False}]
    d = data(term())
    d["terms"]["optimizers"] = opts
    assert not findings_for(CHECK, d)


def test_not_found_without_measurements():
    assert not findings_for(CHECK, {})
    assert not findings_for(CHECK, data())


@pytest.mark.slow
@pytest.mark.parametrize("bug", ["gan_adv_detached", "gan_hinge_detached"])
def test_gan_adversarial_term_on_detached_fake_found(bug):
    hits = [f for f in traced("loss_terms.py", bug) if f.rule == CHECK]
    assert hits and hits[0].location.module == "D" and "'G'" in hits[0].message


@pytest.mark.slow
@pytest.mark.parametrize("healthy", ["gan_plain", "gan_frozen_d", "pix2pix", "dcgan", "lightning_gan", "wgan_critic", "sac",
                                     "a2c_shared", "distill", "constant_term", "probe", "accumulate", "slow_second", "encoder_cleared",
                                     "module_zero_grad"])
def test_healthy_multi_optimizer_loops_not_found(healthy):
    # both checks on several optimizers stay quiet on these (optimizer-steps-other-loss-gradients has its own bugs)
    rules = {f.rule for f in traced("loss_terms.py", healthy)}
    assert not rules & {CHECK, "optimizer-steps-other-loss-gradients"}
