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
