"""The operation-level localiser (runtime/child/nan_ops.py), in process, on tiny tensors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
HARNESS = Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"
sys.path.insert(0, str(HARNESS))

from nan_ops import OpLocator, tensor_stats
from torch import nn


def _names(model):
    table = {id(m): n for n, m in model.named_modules()}
    return lambda m: table.get(id(m), type(m).__name__)


def _births(loc, phase=None):
    return [o for o in loc.origins if o["kind"] == "birth" and (phase is None or o["phase"] == phase)]


class HandNorm(nn.Module):
    def forward(self, h):
        return torch.sqrt((h * h).sum(dim=-1))


class Wrap(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 4, bias=False)
        self.norm = HandNorm()

    def forward(self, x):
        return self.norm(self.proj(x))


def test_sqrt_at_zero_is_a_backward_birth_in_the_module_that_ran_sqrt():
    model = Wrap()
    x = torch.zeros(2, 3)
    loc = OpLocator(_names(model)).arm()
    try:
        loss = model(x).sum()
        loss.backward()
    finally:
        loc.disarm()
    assert _births(loc, "forward") == [] and _births(loc, "loss") == []
    origin = loc.origin_of(model.proj.weight.grad)
    assert origin is not None
    assert (origin["phase"], origin["autograd_node"], origin["module"], origin["op"]) == ("backward", "SqrtBackward0", "norm", "aten::div")
    denominator = next(i for i in origin["inputs"] if i["arg"] == "other")
    assert denominator["zeros"] == denominator["numel"] == 2


def test_finite_sqrt_gradient_is_not_reported():
    model = Wrap()
    loc = OpLocator(_names(model)).arm()
    try:
        model(torch.ones(2, 3)).sum().backward()
    finally:
        loc.disarm()
    assert loc.origins == []
    assert loc.ops_seen > 5


def test_log_of_zero_in_the_loss_is_a_forward_birth_with_zero_count():
    probs = torch.tensor([[1.0, 0.0], [0.5, 0.5]], requires_grad=True)
    loc = OpLocator().arm()
    try:
        loss = -(torch.tensor([[0.0, 1.0], [1.0, 0.0]]) * torch.log(probs)).sum()
    finally:
        loc.disarm()
    origin = loc.origin_of(loss)
    assert origin["op"] == "aten::log" and origin["kind"] == "birth"
    assert origin["inputs"][0]["zeros"] == 1
    assert origin["output"]["neginf"] == 1


def test_where_trap_names_the_backward_of_the_discarded_branch():
    h = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
    loc = OpLocator().arm()
    try:
        y = torch.where(h > 0, torch.log(h), torch.zeros_like(h)).sum()
        y.backward()
    finally:
        loc.disarm()
    assert torch.isfinite(y)  # the forward result is clean ...
    assert [o["op"] for o in _births(loc, "forward")] == ["aten::log"]  # ... though log made -inf/NaN under the mask
    origin = loc.origin_of(h.grad)
    assert (origin["phase"], origin["autograd_node"], origin["op"]) == ("backward", "LogBackward0", "aten::div")


def test_division_by_a_vanishing_norm_in_backward():
    x = torch.zeros(4, requires_grad=True)
    loc = OpLocator().arm()
    try:
        norm = torch.sqrt((x * x).sum()).clamp_min(1e-6)
        (x / norm).sum().backward()
    finally:
        loc.disarm()
    assert _births(loc, "forward") == []
    origin = loc.origin_of(x.grad)
    assert origin["autograd_node"] == "SqrtBackward0"


def test_masked_fill_with_minus_inf_is_deliberate_not_a_birth():
    """Attention masks fill with -inf on purpose; softmax then handles it. Nothing to report."""
    scores = torch.randn(2, 4, requires_grad=True)
    mask = torch.tensor([[False, False, True, True], [False, True, True, True]])
    loc = OpLocator().arm()
    try:
        attn = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        attn.sum().backward()
    finally:
        loc.disarm()
    assert _births(loc) == []
    assert [o["kind"] for o in loc.origins] == ["constant"]
    assert torch.isfinite(scores.grad).all()


def test_origin_is_the_birth_that_reaches_the_loss_not_the_first_in_time():
    z = torch.tensor([-1.0, 0.5, 200.0])
    loc = OpLocator().arm()
    try:
        masked = torch.where(z > 0, torch.sqrt(z), torch.zeros_like(z))  # sqrt(-1) = NaN, discarded
        loss = torch.exp(masked * 0.1).sum() + torch.exp(z).sum()  # exp(200) overflows: the real cause
    finally:
        loc.disarm()
    assert [o["op"] for o in _births(loc)][:1] == ["aten::sqrt"]
    origin = loc.origin_of(loss)
    assert origin["op"] == "aten::exp"
    assert origin["inputs"][0]["max"] == pytest.approx(200.0)


def test_exp_overflow_statistics():
    loc = OpLocator().arm()
    try:
        out = torch.exp(torch.tensor([1.0, 90.0]))
    finally:
        loc.disarm()
    origin = loc.origin_of(out)
    assert origin["inputs"][0]["max"] == pytest.approx(90.0)
    assert origin["output"]["posinf"] == 1


def test_adam_with_zero_eps_is_an_optimizer_birth_on_the_named_parameter():
    emb = nn.Embedding(6, 2)
    opt = torch.optim.Adam(emb.parameters(), lr=1e-3, eps=0.0)
    emb(torch.tensor([0, 1])).sum().backward()
    loc = OpLocator(param_names={id(emb.weight): "emb.weight"}).arm()
    loc.phase_hint = "optimizer"
    try:
        opt.step()
    finally:
        loc.disarm()
    origin = loc.origin_of(emb.weight)
    assert (origin["phase"], origin["parameter"]) == ("optimizer", "emb.weight")
    assert origin["op"] in ("aten::addcdiv_", "aten::div", "aten::_foreach_addcdiv_")


def test_nonfinite_input_from_outside_is_external():
    data = torch.tensor([1.0, float("nan")])
    w = torch.ones(2, requires_grad=True)
    loc = OpLocator().arm()
    try:
        loss = (w * data).sum()
    finally:
        loc.disarm()
    origin = loc.origin_of(loss)
    assert origin["kind"] == "external" and origin["input"]["nan"] == 1


def test_uninitialised_memory_is_ignored():
    loc = OpLocator().arm()
    try:
        buf = torch.empty(1000)
        buf.fill_(1.0)
    finally:
        loc.disarm()
    assert loc.origins == []


def test_nested_modules_report_the_innermost():
    class Inner(nn.Module):
        def forward(self, x):
            return x / x.sum(dim=-1, keepdim=True)

    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Identity(), Inner()))
    with torch.no_grad():
        model[0].weight.zero_()
        model[0].bias.zero_()
    loc = OpLocator(_names(model)).arm()
    try:
        out = model(torch.ones(1, 2))
    finally:
        loc.disarm()
    assert loc.origin_of(out)["module"] == "1.1"


def test_tensor_stats_counts():
    s = tensor_stats(torch.tensor([0.0, -2.0, float("inf"), float("nan"), 3.0]))
    assert (s["nan"], s["posinf"], s["zeros"], s["negatives"], s["max_abs"]) == (1, 1, 1, 1, 3.0)
