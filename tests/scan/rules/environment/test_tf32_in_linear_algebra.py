"""The ``tf32-in-linear-algebra`` rule (``mlsleuth/scan/rules/environment/tf32_in_linear_algebra.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"tf32-in-linear-algebra"}


def test_tf32_on_in_a_gp_module_with_cholesky():
    check(
        """
        import torch

        torch.backends.cuda.matmul.allow_tf32 = True  # expect: tf32-in-linear-algebra

        def neg_mll(K, y):
            L = torch.linalg.cholesky(K)
            alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
            return 0.5 * (y @ alpha.squeeze(-1)) + L.diagonal().log().sum()
        """,
        RULE,
    )


def test_high_precision_mode_in_a_script_of_a_gpytorch_package(tmp_path):
    model = """
    import gpytorch

    class GP(gpytorch.models.ExactGP):
        pass
    """
    fit = """
    import torch
    from model import GP

    torch.set_float32_matmul_precision("high")  # expect: tf32-in-linear-algebra
    """
    check_project(tmp_path, {"model.py": model, "fit.py": fit}, RULE)


def test_tf32_on_for_image_training_or_off_for_linear_algebra_is_fine():
    check(
        """
        import torch
        import torch.nn.functional as F
        from torchvision.models import resnet50

        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True

        def train(loader):
            net = resnet50().cuda()
            for x, y in loader:
                F.cross_entropy(net(x), y).backward()
                solve = y.solve()   # a method of some other object, not torch's linear algebra
        """,
        RULE,
    )
    check(
        """
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False

        def fit(K):
            return torch.linalg.cholesky(K)
        """,
        RULE,
    )
