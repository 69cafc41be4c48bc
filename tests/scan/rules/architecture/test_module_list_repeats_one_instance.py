"""The ``module-list-repeats-one-instance`` rule (``mlsleuth/scan/rules/architecture/module_list_repeats_one_instance.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"module-list-repeats-one-instance"}


def test_list_repetition_of_layers_and_blocks():
    src = """
        import torch.nn as nn

        class Residual(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, padding=1)

        class Stack(nn.Module):
            def __init__(self, c, n):
                super().__init__()
                self.convs = nn.ModuleList([nn.Conv2d(c, c, 3, padding=1)] * n)  # expect: module-list-repeats-one-instance
                self.blocks = nn.Sequential(*[Residual(c)] * n)  # expect: module-list-repeats-one-instance
                layers = n * [nn.Linear(c, c)]
                self.mlp = nn.Sequential(*layers)  # expect: module-list-repeats-one-instance
                block = Residual(c)
                self.shared = nn.ModuleList([block for _ in range(n)])  # expect: module-list-repeats-one-instance
        """
    check(src, RULE)


def test_fresh_modules_per_position_and_parameter_free_repeats_are_fine():
    src = """
        import copy
        import torch.nn as nn

        class Stack(nn.Module):
            def __init__(self, c, n):
                super().__init__()
                self.convs = nn.ModuleList([nn.Conv2d(c, c, 3, padding=1) for _ in range(n)])
                self.gates = nn.ModuleList([nn.Identity()] * n)
                self.acts = nn.Sequential(*[nn.ReLU()] * n)
                block = nn.Linear(c, c)
                self.copies = nn.ModuleList([copy.deepcopy(block) for _ in range(n)])
                self.pairs = nn.ModuleList([nn.Linear(c, c), nn.Linear(c, c)])
                widths = [c] * n
        """
    check(src, RULE)


def test_a_builder_function_repeated_by_list_multiplication():
    src = """
        import torch.nn as nn

        def mlp(in_size, hidden, depth):
            sizes = [in_size] + depth * [hidden]
            layers = []
            for i in range(depth):
                layers.append(nn.Linear(sizes[i], sizes[i + 1]))
                layers.append(nn.LeakyReLU())
            return nn.Sequential(*layers)

        def activations(n):
            return nn.Sequential(*[nn.ReLU() for _ in range(n)])

        class Encoders(nn.Module):
            def __init__(self, hidden):
                super().__init__()
                self.inputs = nn.ModuleList([mlp(1, hidden, 3)] * 2)  # expect: module-list-repeats-one-instance
                self.fresh = nn.ModuleList([mlp(1, hidden, 3) for _ in range(2)])
                self.acts = nn.ModuleList([activations(2)] * 2)
        """
    check(src, RULE)


def test_a_builder_function_of_another_module(tmp_path):
    from scan.helpers import check_project

    check_project(tmp_path, {
        "blocks.py": """
            import torch.nn as nn

            def conv_block(c):
                block = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
                return block

            def gate():
                return nn.Sigmoid()
        """,
        "net.py": """
            import torch.nn as nn
            from blocks import conv_block, gate

            class Net(nn.Module):
                def __init__(self, c, n):
                    super().__init__()
                    self.body = nn.Sequential(*[conv_block(c)] * n)  # expect: module-list-repeats-one-instance
                    self.gates = nn.ModuleList([gate()] * n)
        """,
    }, RULE)


def test_sharing_the_code_says_it_means():
    src = """
        import torch.nn as nn

        class Head(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.proj = nn.Linear(d, 4)

        class Detector(nn.Module):
            def __init__(self, d, layers, share_box_head):
                super().__init__()
                if share_box_head:
                    box = Head(d)
                    self.boxes = nn.ModuleList([box] * layers)
                shared_cls = Head(d)
                self.classes = nn.ModuleList([shared_cls] * layers)
                self.heads = nn.ModuleList([Head(d)] * layers)  # expect: module-list-repeats-one-instance
        """
    check(src, RULE)
