"""The ``learned-tensor-not-registered`` rule (``mlsleuth/scan/rules/architecture/learned_tensor_not_registered.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, messages

R = {"learned-tensor-not-registered"}


def test_requires_grad_tensor_attribute_in_init():
    # tabular / recommender: a learnable activation slope kept as a plain tensor
    check(
        """
        import torch
        import torch.nn as nn

        class Dice(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.bn = nn.BatchNorm1d(dim)
                self.alpha = torch.zeros(dim, requires_grad=True)  # expect: learned-tensor-not-registered

            def forward(self, x):
                p = torch.sigmoid(self.bn(x))
                return p * x + (1 - p) * self.alpha * x
        """,
        R,
    )


def test_requires_grad_in_setup_helper_and_variable_and_flag_set_later():
    # NLP: a learned temperature and an old-style Variable, built in a setup method __init__ calls
    check(
        """
        import math
        import torch
        from torch import nn
        from torch.autograd import Variable

        class ContrastiveHead(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self._build(dim)

            def _build(self, dim):
                self.log_tau = torch.tensor(math.log(0.07)).requires_grad_()  # expect: learned-tensor-not-registered
                self.query = Variable(torch.randn(1, dim), requires_grad=True)  # expect: learned-tensor-not-registered
                self.bias = torch.zeros(dim)
                self.bias.requires_grad = True  # expect: learned-tensor-not-registered

            def forward(self, a, b):
                a = self.proj(a) + self.query + self.bias
                return a @ b.T / self.log_tau.exp()
        """,
        R,
    )


def test_parameter_turned_into_plain_tensor():
    # vision: moved to the GPU, scaled at init, reshaped: each result is a non-leaf tensor
    src = """
        import torch
        import torch.nn as nn

        class PatchEmbed(nn.Module):
            def __init__(self, n, dim, device="cuda"):
                super().__init__()
                self.proj = nn.Conv2d(3, dim, 16, 16)
                self.pos = nn.Parameter(torch.zeros(1, n, dim)).to(device)  # expect: learned-tensor-not-registered
                self.cls = nn.Parameter(torch.randn(dim)) * 0.02  # expect: learned-tensor-not-registered
                self.gamma = nn.Parameter(torch.ones(dim))[None, None]  # expect: learned-tensor-not-registered
                self.beta = nn.Parameter(torch.zeros(dim)).cuda().requires_grad_()  # expect: learned-tensor-not-registered

            def forward(self, x):
                x = self.proj(x).flatten(2).transpose(1, 2)
                return (x + self.pos + self.cls) * self.gamma + self.beta
        """
    check(src, R)
    assert {f.severity for f in messages(src, "learned-tensor-not-registered")} == {"error"}


def test_parameters_in_plain_list_and_dict():
    # audio: per-band gains in a list; RL: per-action log-stds in a dict filled item by item
    check(
        """
        import torch
        import torch.nn as nn

        class FilterBank(nn.Module):
            def __init__(self, n_bands):
                super().__init__()
                self.gains = [nn.Parameter(torch.ones(1)) for _ in range(n_bands)]  # expect: learned-tensor-not-registered

            def forward(self, bands):
                return sum(g * b for g, b in zip(self.gains, bands))

        class Enhancer(nn.Module):
            def __init__(self):
                super().__init__()
                self.bank = FilterBank(8)
                self.out = nn.Conv1d(1, 1, 3)

        class Policy(nn.Module):
            def __init__(self, actions):
                super().__init__()
                self.body = nn.Linear(8, 64)
                self.log_std = {}  # expect: learned-tensor-not-registered
                for a in actions:
                    self.log_std[a] = torch.zeros(1, requires_grad=True)

            def forward(self, obs, a):
                return self.body(obs), self.log_std[a].exp()
        """,
        R,
    )


def test_parameter_built_in_forward():
    check(
        """
        import torch
        import torch.nn as nn
        from torch.nn import Parameter

        class GraphConv(nn.Module):
            def __init__(self, d_in, d_out):
                super().__init__()
                self.lin = nn.Linear(d_in, d_out, bias=False)

            def forward(self, x, adj):
                bias = Parameter(torch.zeros(x.size(-1)))  # expect: learned-tensor-not-registered
                return adj @ self.lin(x) + bias
        """,
        R,
    )


def test_lightning_module():
    check(
        """
        import torch
        import lightning as L

        class Model(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.net = torch.nn.Linear(4, 1)
                self.log_var = torch.zeros(1, requires_grad=True)  # expect: learned-tensor-not-registered

            def training_step(self, batch, idx):
                x, y = batch
                err = (self.net(x) - y) ** 2
                return (err * torch.exp(-self.log_var) + self.log_var).mean()

            def configure_optimizers(self):
                return torch.optim.Adam(self.parameters())
        """,
        R,
    )


def test_registered_and_wrapped_tensors_are_fine():
    check(
        """
        import torch
        import torch.nn as nn
        import torch.nn.utils.parametrize as P

        class Good(nn.Module):
            def __init__(self, d, n):
                super().__init__()
                self.alpha = nn.Parameter(torch.zeros(d))
                self.register_buffer("running", torch.zeros(d))
                self.gains = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(n)])
                heads = {str(i): nn.Parameter(torch.randn(d)) for i in range(n)}
                self.heads = nn.ParameterDict(heads)
                self.table = torch.arange(d).float()           # a constant, no requires_grad
                self.scale = nn.Parameter(torch.ones(d), requires_grad=True).float()   # same dtype: still the Parameter
                self.shift = nn.Parameter(torch.zeros(d)).to(torch.float32)
                w = torch.randn(d, d, requires_grad=True)
                self.w = nn.Parameter(w)
                self.lin = nn.Linear(d, d)
                P.register_parametrization(self.lin, "weight", nn.Identity())

            def forward(self, x):
                with torch.no_grad():
                    self.alpha.data.clamp_(0, 1)
                noise = torch.randn_like(x)                    # an intermediate, not a weight
                return self.lin(x) * self.alpha + self.table + noise + x @ self.w * self.scale + self.shift
        """,
        R,
    )


def test_wrapped_later_or_registered_by_name():
    check(
        """
        import torch
        import torch.nn as nn

        class A(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.w = torch.randn(d, requires_grad=True)
                self.w = nn.Parameter(self.w)
                ps = [nn.Parameter(torch.randn(d)) for _ in range(3)]
                for i, p in enumerate(ps):
                    self.register_parameter(f"p{i}", p)
                self.ps = ps
                self.b = torch.zeros(d, requires_grad=True)
                self.register_parameter("b", nn.Parameter(torch.zeros(d)))

            def forward(self, x):
                return x * self.w + sum(self.ps) + self.b
        """,
        R,
    )


def test_functional_and_outside_module_and_handed_to_optimizer():
    check(
        """
        import torch
        import torch.nn as nn

        w = torch.randn(3, 1, requires_grad=True)      # functional training: outside any module
        b = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([w, b], lr=0.1)

        def model(x, w, b):
            return x @ w + b

        class Functional(nn.Module):
            def forward(self, x, weight):               # weights arrive as arguments
                return x @ weight

        class SAC(nn.Module):
            def __init__(self):
                super().__init__()
                self.pi = nn.Linear(4, 2)
                self.log_alpha = torch.zeros(1, requires_grad=True)   # its own optimizer, on purpose
                self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=3e-4)

            def alpha_loss(self, logp):
                return -(self.log_alpha * logp.detach()).mean()
        """,
        R,
    )


def test_lazy_parameter_in_forward_and_grad_free_cases():
    check(
        """
        import torch
        import torch.nn as nn

        class Lazy(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = None

            def forward(self, x):
                if self.weight is None:
                    self.weight = nn.Parameter(torch.randn(x.size(-1), 4))
                return x @ self.weight

        class Probe(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.delta = torch.zeros(d, requires_grad=True)   # set up but only used here: nothing reads it

        class OwnRegistry(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.w = torch.randn(d, requires_grad=True)

            def parameters(self, recurse=True):
                return iter([self.w])

            def forward(self, x):
                return x * self.w
        """,
        R,
    )


def test_optimizer_in_another_module_of_the_package(tmp_path):
    check_project(
        tmp_path,
        {
            "pkg/model.py": '''
                import torch
                import torch.nn as nn

                class Net(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.fc = nn.Linear(4, 1)
                        self.log_scale = torch.zeros(1, requires_grad=True)

                    def forward(self, x):
                        return self.fc(x) * self.log_scale.exp()
            ''',
            "pkg/train.py": '''
                import torch
                from pkg.model import Net

                net = Net()
                opt = torch.optim.Adam(list(net.parameters()) + [net.log_scale])
            ''',
        },
        R,
    )


def test_module_with_no_registered_state_at_all_stays_silent():
    # optimizer(model.parameters()) on it raises "empty parameter list": loud, not silent; test fixtures
    # build such modules on purpose (a model "with no layers")
    check(
        """
        import torch
        import torch.nn as nn

        class EmptyModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.parameter = torch.rand(3, 3, requires_grad=True)

            def forward(self, x):
                return self.parameter.sum() * x
        """,
        R,
    )


def test_concatenated_token_is_not_handed_over(tmp_path):
    # a class token concatenated in forward is still lost; the module is a part of a model in another file
    check_project(
        tmp_path,
        {
            "vit/blocks.py": '''
                import torch
                import torch.nn as nn

                class ClassToken(nn.Module):
                    def __init__(self, dim):
                        super().__init__()
                        self.cls = torch.zeros(1, 1, dim).requires_grad_()  # expect: learned-tensor-not-registered

                    def forward(self, x):
                        return torch.cat([self.cls.expand(x.size(0), -1, -1), x], dim=1)
            ''',
            "vit/model.py": '''
                import torch.nn as nn
                from vit.blocks import ClassToken

                class ViT(nn.Module):
                    def __init__(self, dim):
                        super().__init__()
                        self.token = ClassToken(dim)
                        self.head = nn.Linear(dim, 10)
            ''',
        },
        R,
    )


def test_zeros_or_ones_constant_used_where_it_does_nothing():
    # recommender activation (zeros times the input) and a speech gain (times ones)
    check(
        """
        import torch
        import torch.nn as nn

        class Dice(nn.Module):
            def __init__(self, emb_size, dim=2, device="cpu"):
                super().__init__()
                self.bn = nn.BatchNorm1d(emb_size)
                if dim == 2:
                    self.alpha = torch.zeros((emb_size,)).to(device)  # expect: learned-tensor-not-registered
                else:
                    self.alpha = torch.zeros((emb_size, 1)).to(device)

            def forward(self, x):
                p = torch.sigmoid(self.bn(x))
                return self.alpha * (1 - p) * x + p * x

        class GainStage(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.conv = nn.Conv1d(channels, channels, 3, padding=1)
                self.gain = torch.ones(1, channels, 1)  # expect: learned-tensor-not-registered

            def forward(self, wave):
                return self.conv(wave) * self.gain.to(wave.device)
        """,
        R,
    )


def test_constant_tables_masks_and_states_stay_silent():
    check(
        """
        import torch
        import torch.nn as nn

        class Decoder(nn.Module):
            def __init__(self, h, n):
                super().__init__()
                self.rnn = nn.GRU(4, h)
                self.h0 = torch.zeros(1, 1, h)                  # an initial state passed to the RNN
                self.mask = torch.ones(n, n)                    # filled in below
                self.mask[0, 0] = 0
                self.count = torch.zeros(n)                     # a running statistic, updated in forward
                self.offset = torch.zeros(n, requires_grad=False)   # declared constant
                self.shift = torch.ones(n)                      # added: x + 1 is not an identity

            def forward(self, x):
                self.count += 1
                out, _ = self.rnn(x, self.h0.expand(1, x.size(1), -1).contiguous())
                return out * self.mask[0] + self.offset + (out + self.shift) / self.count
        """,
        R,
    )
