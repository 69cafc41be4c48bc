"""The ``numpy-rng-unseeded`` rule (``mlsleuth/scan/rules/reproducibility/numpy_rng_unseeded.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = "numpy-rng-unseeded"


def test_torch_seeded_while_the_split_and_masks_come_from_numpy_flags():
    src = """
    import numpy as np
    import torch

    SEED = 8
    torch.manual_seed(SEED)  # expect: numpy-rng-unseeded

    counts = np.load("counts.npy")
    perm = np.random.permutation(len(counts))
    test_idx, train_idx = perm[:100], perm[100:]

    def random_mask(x, p=0.1):
        return x * np.random.binomial(1, 1 - p, size=x.shape)
    """
    check(src, {RULE})
    (f,) = findings(src, RULE)
    assert "permutation at line 8" in f.observation and "binomial" in f.observation


def test_aliased_numpy_random_module_is_recognised():
    src = """
    import numpy.random as npr
    import torch

    def main(seed):
        torch.cuda.manual_seed_all(seed)  # expect: numpy-rng-unseeded
        torch.manual_seed(seed)
        idx = npr.choice(1000, 100, replace=False)
        return idx
    """
    check(src, {RULE})


def test_numpy_seeded_directly_through_a_helper_or_a_library_seeder_is_fine():
    seeded = """
    import random
    import numpy as np
    import torch

    def set_seed(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)

    set_seed(0)
    torch.manual_seed(0)
    perm = np.random.permutation(100)
    """
    check(seeded, {RULE})
    lightning = """
    import numpy as np
    import torch
    from lightning import seed_everything

    seed_everything(7)
    torch.manual_seed(7)
    noise = np.random.randn(16)
    """
    check(lightning, {RULE})
    hf = """
    import numpy as np
    import torch
    from transformers import set_seed

    set_seed(3)
    torch.manual_seed(3)
    keep = np.random.rand(10) > 0.5
    """
    check(hf, {RULE})


def test_draws_from_a_seeded_generator_object_are_fine():
    src = """
    import numpy as np
    import torch

    SEED = 8
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    perm = rng.permutation(1000)
    state = np.random.RandomState(SEED)
    mask = state.binomial(1, 0.9, size=(1000,))
    """
    check(src, {RULE})


def test_no_torch_seed_or_no_numpy_draw_is_not_this_rule():
    unseeded_everything = """
    import numpy as np
    import torch

    perm = np.random.permutation(100)
    model = torch.nn.Linear(4, 2)
    """
    check(unseeded_everything, {RULE})
    torch_only = """
    import numpy as np
    import torch

    torch.manual_seed(0)
    x = torch.randn(8, 4)
    arr = np.random.default_rng().normal(size=3)
    """
    check(torch_only, {RULE})


def test_draws_in_another_module_and_a_seed_helper_in_another_module_are_followed(tmp_path):
    from scan.helpers import check_project

    data = """
    import numpy as np

    def split(n, frac=0.1):
        perm = np.random.permutation(n)
        k = int(n * frac)
        return perm[k:], perm[:k]
    """
    train = """
    import torch
    from data import split

    torch.manual_seed(0)  # expect: numpy-rng-unseeded
    train_idx, val_idx = split(1000)
    """
    check_project(tmp_path / "unseeded", {"data.py": data, "train.py": train}, {RULE})
    utils = """
    import random
    import numpy as np

    def fix_seeds(seed):
        random.seed(seed)
        np.random.seed(seed)
    """
    train_seeded = """
    import torch
    from data import split
    from utils import fix_seeds

    fix_seeds(0)
    torch.manual_seed(0)
    train_idx, val_idx = split(1000)
    """
    check_project(tmp_path / "seeded", {"data.py": data, "utils.py": utils, "train.py": train_seeded}, {RULE})


def test_unrelated_module_of_a_large_repository_does_not_count(tmp_path):
    # a unit test seeds torch for its own tensors; a data-augmentation module elsewhere in the repository
    # draws from NumPy, but the test neither imports it nor lives beside it
    files = {
        "tests/test_storage.py": """
            import torch
            from pkg.storage import Store

            def test_roundtrip():
                torch.manual_seed(23)
                data = torch.rand(4, 4)
                assert Store().roundtrip(data).equal(data)
            """,
        "pkg/storage.py": """
            class Store:
                def roundtrip(self, x):
                    return x.clone()
            """,
        "pkg/augment.py": """
            import numpy as np

            def jitter(img):
                return img + np.random.normal(0, 0.1, img.shape)
            """,
        "train.py": """
            import torch
            from pkg.augment import jitter

            torch.manual_seed(0)  # expect: numpy-rng-unseeded
            """,
    }
    check_project(tmp_path, files, RULE)
