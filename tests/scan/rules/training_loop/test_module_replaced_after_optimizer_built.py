"""The ``module-replaced-after-optimizer-built`` rule (``mlsleuth/scan/rules/training_loop/module_replaced_after_optimizer_built.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

MR = {"module-replaced-after-optimizer-built"}


def test_torchvision_head_replaced_after_the_optimizer():
    check(
        """
        import torch
        import torch.nn as nn
        import torchvision

        model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        model.fc = nn.Linear(model.fc.in_features, 10)  # expect: module-replaced-after-optimizer-built
        model = model.cuda()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        """,
        MR,
    )


def test_sequential_slot_and_project_head_replaced_in_a_function():
    check(
        """
        import torch
        import torch.nn as nn
        from torchvision import models

        class Head(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.lin = nn.Linear(4096, n)

            def forward(self, x):
                return self.lin(x)

        def build(num_classes, lr):
            net = models.vgg16(weights="DEFAULT")
            params = [p for p in net.classifier.parameters() if p.requires_grad]
            opt = torch.optim.Adam(params, lr=lr)
            net.classifier[6] = nn.Linear(4096, num_classes)  # expect: module-replaced-after-optimizer-built
            return net, opt

        def build2(num_classes):
            net = models.vgg16(weights="DEFAULT")
            opt = torch.optim.AdamW([
                {"params": net.features.parameters(), "lr": 1e-5},
                {"params": net.classifier.parameters(), "lr": 1e-3},
            ])
            net.classifier = Head(num_classes)  # expect: module-replaced-after-optimizer-built
            return net, opt
        """,
        MR,
    )


def test_message():
    got = findings(
        """
        import torch
        from transformers import AutoModel
        bert = AutoModel.from_pretrained("bert-base-uncased")
        opt = torch.optim.AdamW(bert.parameters(), lr=2e-5)
        bert.pooler = torch.nn.Linear(768, 768)
        opt.step()
        """,
        "module-replaced-after-optimizer-built",
    )
    assert len(got) == 1 and "`bert.pooler`" in got[0].message and "line 4" in got[0].message


def test_replacements_before_or_followed_by_a_new_optimizer_are_fine():
    check(
        """
        import torch
        import torch.nn as nn
        import torchvision

        def a():
            model = torchvision.models.resnet18(weights="DEFAULT")
            model.fc = nn.Linear(512, 10)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            opt.step()

        def b():
            model = torchvision.models.resnet18(weights="DEFAULT")
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            model.fc = nn.Linear(512, 10)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            opt.step()

        def c():
            model = torchvision.models.resnet18(weights="DEFAULT")
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            model.fc = nn.Linear(512, 10)
            opt.add_param_group({"params": model.fc.parameters()})
            opt.step()

        def d(model, backbone):
            opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
            backbone.fc = nn.Identity()
            model.dropout = nn.Dropout(0.2)
            other = torchvision.models.resnet18()
            other.fc = nn.Linear(512, 3)
            opt.step()

        def e(model, stages):
            for stage in stages:
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                opt.step()
                model.head = nn.Linear(8, stage)
        """,
        MR,
    )


def test_model_rebound_before_the_replacement_is_fine():
    check(
        """
        import torch
        import torch.nn as nn
        import torchvision

        model = torchvision.models.resnet18(weights="DEFAULT")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model = torchvision.models.resnet34(weights="DEFAULT")
        model.fc = nn.Linear(512, 10)
        opt.step()
        """,
        MR,
    )
