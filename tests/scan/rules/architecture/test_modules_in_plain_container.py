"""The ``modules-in-plain-container`` rule (``mlsleuth/scan/rules/architecture/modules_in_plain_container.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

R = {"modules-in-plain-container"}


def test_plain_list_dict_and_append_with_severities():
    src = """
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, sizes):
                super().__init__()
                self.layers = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]  # expect: modules-in-plain-container
                self.heads = {"cls": nn.Linear(8, 3), "box": nn.Linear(8, 4)}  # expect: modules-in-plain-container
                self.acts = [nn.ReLU(), nn.GELU()]  # expect: modules-in-plain-container
                self.drops = []  # expect: modules-in-plain-container
                for _ in sizes:
                    self.drops.append(nn.Dropout(0.1))

            def forward(self, x):
                for layer, act in zip(self.layers, self.acts):
                    x = act(layer(x))
                return x
        """
    check(src, R)
    by_line = {f.location.line: f.severity for f in messages(src, "modules-in-plain-container")}
    assert by_line == {7: "error", 8: "error", 9: "info", 10: "warning"}


def test_local_subclass_in_list():
    check(
        """
        from torch import nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

        class Stack(nn.Module):
            def __init__(self, n):
                super().__init__()
                blocks = []
                for _ in range(n):
                    blocks.append(Block())
                self.blocks = blocks  # expect: modules-in-plain-container
        """,
        R,
    )


def test_wrapped_or_registered_containers_are_fine():
    check(
        """
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, sizes):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in sizes])
                blocks = [nn.Linear(4, 4), nn.ReLU()]
                self.body = nn.Sequential(*blocks)
                self.tmp = [nn.Linear(2, 2)]
                self.tmp = nn.ModuleList(self.tmp)
                self.sizes = [4, 8, 16]
                self.names = {"a": "b"}
                self.hooks = []

        class Manual(nn.Module):
            def __init__(self):
                super().__init__()
                self.parts = [nn.Linear(2, 2), nn.Linear(2, 2)]
                for i, p in enumerate(self.parts):
                    self.add_module(f"part{i}", p)

        class NotAModule:
            def __init__(self):
                self.layers = [nn.Linear(2, 2)]
        """,
        R,
    )


def test_loss_functions_in_a_dict_are_fine():
    check(
        """
        from torch import nn
        from torch.nn import CrossEntropyLoss, SmoothL1Loss

        class Pretraining(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(8, 8)
                self.loss_fcts = {"l2": SmoothL1Loss(reduction="none"), "ce": CrossEntropyLoss()}
        """,
        R,
    )


def test_lists_of_pairs_from_torch_nn_helpers_stay_silent():
    # a multi-branch convolution keeps one (h, w) padding and dilation per branch, made by torch's own helper
    src = """
        import torch
        from torch import nn
        from torch.nn.modules.utils import _pair

        class BranchConv(nn.Module):
            def __init__(self, cin, cout, k, paddings=(1, 2, 3), dilations=(1, 2, 3)):
                super().__init__()
                self.kernel_size = _pair(k)
                self.paddings = [_pair(p) for p in paddings]
                self.dilations = [_pair(d) for d in dilations]
                self.weight = nn.Parameter(torch.empty(cout, cin, *self.kernel_size))
                self.heads = [nn.Dropout(0.1) for _ in paddings]  # expect: modules-in-plain-container

            def forward(self, xs):
                return [torch.nn.functional.conv2d(x, self.weight, None, 1, p, d)
                        for x, p, d in zip(xs, self.paddings, self.dilations)]
        """
    check(src, R)
