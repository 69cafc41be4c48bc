"""The ``low-precision-weights-trained`` rule (``mlsleuth/scan/rules/environment/low_precision_weights_trained.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"low-precision-weights-trained"}


def test_model_cast_before_the_optimizer_steps_its_weights():
    check(
        """
        from dataclasses import dataclass
        import torch
        import torch.nn.functional as F

        @dataclass
        class Config:
            lr: float = 1e-4
            dtype: torch.dtype = torch.bfloat16

        def main(cfg=Config()):
            lm = build()
            lm = lm.to(cfg.dtype)  # expect: low-precision-weights-trained
            opt = torch.optim.AdamW(lm.parameters(), lr=cfg.lr)
            for x, y in batches():
                loss = F.cross_entropy(lm(x).float(), y)
                opt.zero_grad()
                loss.backward()
                opt.step()

        def other(net, loader):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            net.half()  # expect: low-precision-weights-trained
            for x, y in loader:
                net(x.half()).float().sum().backward()
                opt.step()

        if __name__ == "__main__":
            main()
        """,
        RULE,
    )


def test_half_network_helper_with_batchnorm_in_another_file(tmp_path):
    utils = """
    import torch.nn as nn

    def network_to_half(network):
        return nn.Sequential(network.half())  # expect: low-precision-weights-trained
    """
    train = """
    import torch
    from torchvision.models import resnet50
    from fp16_utils import network_to_half

    def main(loader, master_params):
        model = network_to_half(resnet50().cuda())
        optimizer = torch.optim.SGD(master_params, lr=0.1)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x).float(), y)
            (loss * 128.0).backward()
            optimizer.step()
    """
    check_project(tmp_path, {"fp16_utils.py": utils, "train.py": train}, RULE)


def test_cast_after_training_autocast_and_batchnorm_refloat_are_fine(tmp_path):
    check(
        """
        import torch

        def main(lm, loader):
            opt = torch.optim.AdamW(lm.parameters(), lr=1e-4)
            for x, y in loader:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = lm(x, y)
                loss.backward()
                opt.step()
            lm = lm.to(torch.bfloat16).eval()      # export after training
            return lm

        def data(loader, net, opt):
            for x, y in loader:
                x = x.half()                        # the inputs, per batch
                net(x).sum().backward()

        def frozen(backbone, head, loader):
            backbone.half()                         # not optimised: a frozen feature extractor
            opt = torch.optim.Adam(head.parameters())
            for x in loader:
                head(backbone(x).float()).sum().backward()
                opt.step()
        """,
        RULE,
    )
    utils = """
    import torch
    import torch.nn as nn

    def BN_convert_float(module):
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.float()
        return module

    def network_to_half(network):
        return nn.Sequential(BN_convert_float(network.half()))
    """
    train = """
    import torch
    from torchvision.models import resnet50
    from fp16_utils import network_to_half

    def main(loader):
        model = network_to_half(resnet50().cuda())
        for x, y in loader:
            model(x).float().sum().backward()
    """
    check_project(tmp_path, {"fp16_utils.py": utils, "train.py": train}, RULE)
