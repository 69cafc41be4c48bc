"""``analysis.optimizer_params``: which modules an optimizer construction trains."""

from __future__ import annotations

import ast

import pytest
from mlsleuth.scan.analysis.optimizer_params import params_argument, trained_modules


def _call(src: str) -> ast.Call:
    node = ast.parse(src, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


@pytest.mark.parametrize(
    ("src", "modules"),
    [
        ("torch.optim.Adam(model.parameters(), lr=1e-3)", {"model"}),
        ("optim.SGD(params=net.named_parameters())", {"net"}),
        ("AdamW([{'params': self.encoder.parameters(), 'lr': 1e-5}, {'params': self.head.parameters()}])", {"self.encoder", "self.head"}),
        ("Adam(itertools.chain(g.parameters(), d.parameters()), betas=(0.5, 0.999))", {"g", "d"}),
        ("Adam([p for p in model.backbone.parameters() if p.requires_grad])", {"model.backbone"}),
        ("Adam(list(a.parameters()) + list(b.parameters()))", {"a", "b"}),
    ],
)
def test_named_modules_are_the_whole_story(src, modules):
    found = trained_modules(_call(src))
    assert found.modules == frozenset(modules)
    assert not found.opaque
    assert found.known == frozenset(modules)


@pytest.mark.parametrize(
    "src",
    [
        "Adam(params)",  # a list built elsewhere
        "Adam(self.get_model().parameters())",  # parameters of something computed
        "Adam(lr=1e-3)",  # no parameters given here
        "self.optimizers()",
    ],
)
def test_unknown_parameters_are_opaque(src):
    found = trained_modules(_call(src))
    assert found.opaque
    assert found.known is None


def test_computed_and_named_together_keep_the_named_but_say_opaque():
    found = trained_modules(_call("Adam(chain(model.parameters(), build().parameters()))"))
    assert found.modules == frozenset({"model"})
    assert found.opaque and found.known is None


def test_only_the_parameter_argument_is_read():
    call = _call("Lookahead(Adam(model.parameters()), k=5, extra=other.parameters())")
    assert ast.unparse(params_argument(call)) == "Adam(model.parameters())"
    assert trained_modules(call).modules == frozenset({"model"})
    assert trained_modules(None).opaque


def _function(ctx, name):
    return next(f for f in ctx.functions if f.name == name)


def test_modules_in_scope_need_the_same_function_or_class():
    from mlsleuth.scan.analysis.context import FileContext
    from mlsleuth.scan.analysis.optimizer_params import modules_in_scope

    ctx = FileContext.from_source(
        "import torch\n"
        "def main(G):\n"
        "    opt = torch.optim.Adam(G.parameters())\n"
        "    G(x)\n"
        "def other(G):\n"
        "    G(x)\n"
    )
    construction = next(c for c in ctx.calls() if ctx.segment(c).startswith("torch.optim.Adam"))
    uses = [c for c in ctx.calls() if ctx.segment(c) == "G(x)"]
    assert modules_in_scope(ctx, construction, uses[0]) == frozenset({"G"})
    assert modules_in_scope(ctx, construction, uses[1]) is None


def test_modules_passed_in_are_named_as_the_callee_names_them():
    from mlsleuth.scan.analysis.context import FileContext
    from mlsleuth.scan.analysis.optimizer_params import modules_passed_in

    ctx = FileContext.from_source(
        "import torch\n"
        "def train(gen, disc, g_opt, d_opt):\n"
        "    pass\n"
        "def main(netG, netD):\n"
        "    opt_g = torch.optim.Adam(netG.parameters())\n"
        "    opt_d = torch.optim.Adam(netD.head.parameters())\n"
        "    opt_x = torch.optim.Adam(other.parameters())\n"
        "    train(netG, netD, opt_g, opt_d)\n"
        "    train(netG, netD, opt_x, opt_d)\n"
    )
    train = _function(ctx, "train")
    # two call sites: the names could differ between them
    assert modules_passed_in(ctx, train, "g_opt") is None
    single = FileContext.from_source(
        "import torch\n"
        "def train(gen, disc, g_opt, d_opt):\n"
        "    pass\n"
        "def main(netG, netD):\n"
        "    opt_g = torch.optim.Adam(netG.parameters())\n"
        "    opt_d = torch.optim.Adam(netD.head.parameters())\n"
        "    opt_x = torch.optim.Adam(other.parameters())\n"
        "    train(netG, netD, opt_g, opt_d)\n"
    )
    train = _function(single, "train")
    assert modules_passed_in(single, train, "g_opt") == frozenset({"gen"})
    assert modules_passed_in(single, train, "d_opt") == frozenset({"disc.head"})


def test_a_module_the_caller_does_not_pass_leaves_the_optimizer_unknown():
    from mlsleuth.scan.analysis.context import FileContext
    from mlsleuth.scan.analysis.optimizer_params import modules_passed_in

    ctx = FileContext.from_source(
        "import torch\n"
        "def train(gen, g_opt):\n"
        "    pass\n"
        "def main(netG, ema):\n"
        "    opt = torch.optim.Adam(list(netG.parameters()) + list(ema.parameters()))\n"
        "    train(netG, opt)\n"
    )
    assert modules_passed_in(ctx, _function(ctx, "train"), "g_opt") is None
