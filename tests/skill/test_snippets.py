"""The handbook's code snippets do what the text says they do.

Each chapter's ```python blocks are executed into a namespace and the helpers
they define are run on tiny models: a healthy case that must pass and a buggy
case that must be caught.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from torch import nn

ROOT = Path(__file__).resolve().parents[2]


def snippets(rel: str) -> dict:
    text = (ROOT / rel).read_text(encoding="utf-8")
    namespace: dict = {}
    for block in re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
        exec(compile(block, rel, "exec"), namespace)  # noqa: S102 - the handbook's own snippets
    return namespace


@pytest.fixture(scope="module")
def diag():
    return snippets("refs/runtime_diagnostics.md")


def test_gradient_report_names_detached_and_frozen_parameters(diag, capsys):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2), nn.Linear(2, 2))
    model[2].weight.requires_grad_(False)
    x = torch.randn(8, 4)
    hidden = model[0](x).detach()  # the bug: the first layer is cut off
    model[2](model[1](hidden)).sum().backward()
    diag["gradient_report"](model)
    out = capsys.readouterr().out
    assert "no grad    0.weight" in out and "frozen     2.weight" in out
    assert "1.weight" not in out


def test_unoptimised_lists_parameters_missing_from_the_optimizer(diag):
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    opt = torch.optim.SGD(model[0].parameters(), lr=0.1)
    assert diag["unoptimised"](model, opt) == ["1.weight", "1.bias"]
    assert diag["unoptimised"](model, torch.optim.SGD(model.parameters(), lr=0.1)) == []


def test_update_ratios_are_near_zero_for_a_tiny_lr(diag):
    torch.manual_seed(0)
    model = nn.Linear(10, 2)
    x, y = torch.randn(16, 10), torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    tiny = diag["update_ratios"](model, torch.optim.SGD(model.parameters(), lr=1e-7), loss)
    loss = nn.functional.cross_entropy(model(x), y)
    large = diag["update_ratios"](model, torch.optim.SGD(model.parameters(), lr=1.0), loss)
    assert tiny["weight"] < -6 and large["weight"] > tiny["weight"] + 5


def test_initial_loss_check_flags_an_overscaled_head(diag):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
    x, y = torch.randn(256, 20), torch.randint(0, 10, (256,))
    assert abs(diag["initial_loss_check"](model, x, y, 10) - 1) < 0.05
    with torch.no_grad():
        model[2].weight.mul_(30)
    assert diag["initial_loss_check"](model, x, y, 10) > 2


def test_overfit_one_batch_separates_healthy_and_double_softmax(diag):
    torch.manual_seed(0)
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    healthy = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 4))
    history = diag["overfit_one_batch"](healthy, x, y, nn.functional.cross_entropy, steps=200, lr=1e-2)
    assert history[-1][1] < 0.05
    torch.manual_seed(0)
    buggy = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 4), nn.Softmax(dim=1))
    history = diag["overfit_one_batch"](buggy, x, y, nn.functional.cross_entropy, steps=200, lr=1e-2)
    assert history[-1][1] > 0.74  # floor ln(1 + 3/e) = 0.744 for four classes


def test_batch_independence_catches_a_batch_mixing_view(diag):
    class Mixer(nn.Module):
        """Treats (batch, time, feat) as time-major with view instead of transpose: the bug."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            time_major = x.view(x.shape[1], x.shape[0], x.shape[2])
            return self.lin(time_major.sum(dim=0))

    class Clean(Mixer):
        def forward(self, x):
            return self.lin(x.transpose(0, 1).sum(dim=0))

    x = torch.randn(4, 3, 2)
    assert diag["rows_that_influence"](Clean(), x, row=1) == [1]
    assert diag["rows_that_influence"](Mixer(), x, row=1) != [1]


def test_nan_hooks_point_at_the_birthplace():
    nan = snippets("refs/nan_inf.md")

    class Log(nn.Module):
        def forward(self, x):
            return torch.log(x)

    model = nn.Sequential(nn.ReLU(), Log(), nn.Linear(3, 1))
    nan["install_finite_hooks"](model)
    with pytest.raises(FloatingPointError, match="Log .inputs were finite"):
        model(torch.tensor([[-1.0, 2.0, 3.0]]))
    healthy = nn.Sequential(nn.Linear(3, 1))
    nan["install_finite_hooks"](healthy)
    healthy(torch.randn(2, 3))


def test_future_leak_positions_detects_a_non_causal_model():
    leak = snippets("refs/data_and_leakage.md")["future_leak_positions"]

    class Uni(nn.Module):
        def __init__(self, bidirectional):
            super().__init__()
            self.rnn = nn.GRU(4, 8, batch_first=True, bidirectional=bidirectional)

        def forward(self, x):
            return self.rnn(x)[0]

    x = torch.randn(2, 10, 4)
    assert leak(Uni(False), x, 4) == []
    assert leak(Uni(True), x, 4) == [0, 1, 2, 3, 4]


def test_first_divergence_finds_the_changed_layer():
    diff = snippets("refs/reference_implementations.md")["first_divergence"]
    import copy

    a = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    b = copy.deepcopy(a)
    x = torch.randn(5, 3)
    assert diff(a, b, x) is None
    with torch.no_grad():
        b[2].bias.add_(1.0)
    assert diff(a, b, x) == ("2", "2")


def test_loss_grid_finds_the_target():
    grid = snippets("refs/loss_surface.md")["loss_grid"]
    mse = lambda p, t: ((p - t) ** 2).mean()
    _, values = grid(mse, torch.tensor([[1.0, -2.0]]), torch.tensor([0.0, 0.0]), span=4.0, steps=9)
    assert values.min().item() == 0.0


def test_hard_dirichlet_meets_the_boundary_for_any_network():
    hard = snippets("pinn/SKILL.md")["hard_dirichlet"]
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
    u = hard(net, torch.tensor([[0.0], [1.0]]), u_left=2.0, u_right=-3.0)
    assert torch.allclose(u.flatten(), torch.tensor([2.0, -3.0]))


def test_term_gradient_norms_spot_a_disconnected_term():
    norms = snippets("pinn/loss_balancing.md")["term_gradient_norms"]
    net = nn.Linear(1, 1)
    x = torch.rand(8, 1)
    terms = {"fit": (net(x) - 1).pow(2).mean(), "detached": (net(x).detach() - 1).pow(2).mean() * 0 + torch.tensor(0.3)}
    out = norms(net, terms)
    assert out["fit"] > 0 and out["detached"] == 0.0


def test_dimensionless_heat_variables_round_trip():
    ns = snippets("pinn/nondimensionalisation.md")
    x, t, theta = ns["to_dimensionless"](0.05, 3600.0, 100.0)
    assert (x, round(t, 6), theta) == (1.0, 14.4, 1.0)
    assert ns["from_dimensionless"](theta) == 100.0


def test_td_target_bootstraps_only_when_not_terminated():
    td = snippets("rl/SKILL.md")["td_target"]
    assert td(1.0, 10.0, 1.0) == 1.0
    assert td(1.0, 10.0, 0.0, gamma=0.5) == 6.0


def test_probe_environments_give_the_documented_rewards():
    ns = snippets("rl/probe_environments.md")
    env = ns["DelayedReward"]()
    env.reset()
    assert env.step(0)[1:3] == (0.0, False) and env.step(0)[1:3] == (1.0, True)
    env = ns["MatchObservation"](seed=3)
    for _ in range(5):
        obs, _ = env.reset()
        right = 0 if obs[0] > 0 else 1
        assert env.step(right)[1] == 1.0 and env.step(1 - right)[1] == -1.0
    assert ns["ActionReward"]().step(1)[1] == -1.0


def test_setup_function_in_skill_follows_the_contract():
    setup = snippets("refs/tools.md")["setup"]()
    assert isinstance(setup["model"], nn.Module)
    inputs, targets = setup["batch"]
    loss = setup["loss_fn"](setup["model"](inputs), targets)
    assert loss.dim() == 0
    assert isinstance(setup["optimizer"](setup["model"].parameters()), torch.optim.Optimizer)
