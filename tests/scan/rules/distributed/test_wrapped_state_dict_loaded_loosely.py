"""The ``wrapped-state-dict-loaded-loosely`` rule (``mlsleuth/scan/rules/distributed/wrapped_state_dict_loaded_loosely.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"wrapped-state-dict-loaded-loosely"}


def test_dataparallel_state_saved_and_loaded_loosely_in_one_script():
    src = """
        import torch
        import torch.nn as nn

        net = nn.DataParallel(nn.Linear(4, 2))
        torch.save({"epoch": 3, "weights": net.state_dict()}, "ck.pt")  # expect: wrapped-state-dict-loaded-loosely

        plain = nn.Linear(4, 2)
        plain.load_state_dict(torch.load("ck.pt")["weights"], strict=False)
        """
    check(src, RULE)


def test_wrapper_passed_to_a_save_helper_and_loaded_in_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "io_utils.py": """
                import torch

                def dump(model, path):
                    torch.save(model.state_dict(), path)  # expect: wrapped-state-dict-loaded-loosely

                def restore(model, path):
                    model.load_state_dict(torch.load(path), strict=False)
                    return model
                """,
            "main.py": """
                from torch.nn.parallel import DistributedDataParallel
                from io_utils import dump

                def run(net, path):
                    ddp = DistributedDataParallel(net)
                    dump(ddp, path)
                """,
        },
        RULE,
    )


def test_inner_module_strict_loads_or_prefix_handling_stay_silent(tmp_path):
    src = """
        import torch
        import torch.nn as nn

        net = nn.DataParallel(nn.Linear(4, 2))
        torch.save(net.module.state_dict(), "a.pt")
        plain = nn.Linear(4, 2)
        plain.load_state_dict(torch.load("a.pt"), strict=False)
        """
    check(src, RULE)
    strict_only = """
        import torch
        import torch.nn as nn

        wrapped = nn.DataParallel(nn.Linear(4, 2))
        torch.save(wrapped.state_dict(), "b.pt")
        nn.Linear(4, 2).load_state_dict(torch.load("b.pt"))
        """
    check(strict_only, RULE)
    check_project(
        tmp_path,
        {
            "save.py": """
                import torch
                import torch.nn as nn

                def save(net, path):
                    torch.save(nn.DataParallel(net).state_dict(), path)

                def save_wrapped(net, path):
                    wrapped = nn.DataParallel(net)
                    torch.save(wrapped.state_dict(), path)
                """,
            "load.py": """
                import torch

                def load(model, path):
                    state = {k.removeprefix("module."): v for k, v in torch.load(path).items()}
                    model.load_state_dict(state, strict=False)
                """,
        },
        RULE,
    )
