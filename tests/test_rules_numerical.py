"""Rules of mlsleuth.scan.rules.numerical."""

from __future__ import annotations

from rules_a_helpers import findings, hits, line


def test_nan_equality_variants():
    src = """
    import math
    import numpy as np
    import torch

    def guard(loss, arr, t):
        if loss == float('nan'):  # <- a
            print("nan")
        if arr != np.nan:  # <- b
            pass
        if t == torch.nan:  # <- c
            pass
        if t is float("nan"):  # <- d
            pass
    """
    assert hits(src, "nan-equality-check") == {
        ("nan-equality-check", line(src, "# <- a")),
        ("nan-equality-check", line(src, "# <- b")),
        ("nan-equality-check", line(src, "# <- c")),
        ("nan-equality-check", line(src, "# <- d")),
    }


def test_nan_checks_done_right_and_nan_strings_are_not_flagged():
    src = """
    import math
    import numpy as np
    import torch

    def guard(loss, arr, label):
        if math.isnan(loss) or np.isnan(arr).any() or torch.isnan(loss):
            raise FloatingPointError("nan")
        if label == "nan" or arr.item() is np.nan:
            return None
        fill = float("nan")
        return fill
    """
    assert hits(src, "nan-equality-check") == set()


def test_log_of_softmax_direct_named_method_and_sigmoid():
    src = """
    import torch
    import torch.nn.functional as F

    def losses(z, y):
        a = torch.log(F.softmax(z, dim=1))  # <- a
        probs = z.softmax(dim=-1)
        b = probs.log()  # <- b
        c = torch.log(torch.sigmoid(z))  # <- c
        return a, b, c
    """
    got = findings(src, "log-of-softmax")
    assert {f.location.line for f in got} == {line(src, "# <- a"), line(src, "# <- b"), line(src, "# <- c")}
    assert any("logsigmoid" in f.message for f in got)


def test_log_softmax_and_eps_shifted_log_are_not_flagged():
    src = """
    import torch
    import torch.nn.functional as F

    def losses(z, eps=1e-8):
        a = F.log_softmax(z, dim=1)
        probs = torch.softmax(z, dim=1)
        b = torch.log(probs + eps)
        c = torch.log(probs.clamp(min=eps))
        entropy = -(probs * a).sum(1)
        return b, c, entropy, torch.log(z)
    """
    assert hits(src, "log-of-softmax") == set()


def test_softmax_implicit_dim():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    head = nn.Sequential(nn.Linear(4, 3), nn.Softmax())  # <- module

    def f(x):
        return F.log_softmax(x)  # <- func
    """
    assert hits(src, "softmax-implicit-dim") == {
        ("softmax-implicit-dim", line(src, "# <- module")),
        ("softmax-implicit-dim", line(src, "# <- func")),
    }


def test_softmax_with_explicit_dim_is_fine():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    head = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=-1), nn.LogSoftmax(1))

    def f(x, axis):
        return F.softmax(x, -1), F.log_softmax(x, dim=axis), torch.softmax(x, 1), x.softmax(dim=0)
    """
    assert hits(src, "softmax-implicit-dim") == set()


def test_softmax_over_batch_dim_in_classification_path():
    src = """
    import torch.nn.functional as F

    def train_step(model, x, y):
        logits = model(x)
        loss = F.nll_loss(F.log_softmax(logits, dim=0), y)  # <- loss
        probs = F.softmax(logits, 0)  # <- argmax
        pred = probs.argmax(dim=1)
        return loss, pred
    """
    assert hits(src, "softmax-over-batch-dim") == {
        ("softmax-over-batch-dim", line(src, "# <- loss")),
        ("softmax-over-batch-dim", line(src, "# <- argmax")),
    }


def test_softmax_dim0_on_vectors_and_attention_over_last_dim_are_fine():
    src = """
    import torch
    import torch.nn.functional as F

    def pool(scores, values, q, k):
        weights = F.softmax(scores, dim=0)
        pooled = (weights.unsqueeze(-1) * values).sum(0)
        attn = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
        top = weights.argmax()
        return pooled, attn, top
    """
    assert hits(src, "softmax-over-batch-dim") == set()


def test_nan_to_num_on_loss_logits_and_grads():
    src = """
    import torch

    def step(model, x, y, crit, opt):
        logits = model(x)
        logits = torch.nan_to_num(logits)  # <- logits
        loss = crit(logits, y).nan_to_num(nan=0.0)  # <- loss
        loss.backward()
        for p in model.parameters():
            if p.grad is not None:
                p.grad.nan_to_num_()  # <- grad
        opt.step()
    """
    assert hits(src, "nan-to-num-masking") == {
        ("nan-to-num-masking", line(src, "# <- logits")),
        ("nan-to-num-masking", line(src, "# <- loss")),
        ("nan-to-num-masking", line(src, "# <- grad")),
    }


def test_nan_to_num_on_input_features_is_fine():
    src = """
    import numpy as np
    import torch

    def load(frame):
        features = np.nan_to_num(frame.values, nan=0.0)
        pixels = torch.nan_to_num(torch.from_numpy(features))
        return pixels
    """
    assert hits(src, "nan-to-num-masking") == set()


def test_nan_loss_skip_is_info():
    src = """
    import math
    import torch

    def train(model, loader, opt, crit, log):
        for x, y in loader:
            loss = crit(model(x), y)
            if torch.isnan(loss).any():  # <- a
                log.warning("nan loss, skipping")
                continue
            if not math.isfinite(loss.item()):  # <- b
                continue
            loss.backward()
            opt.step()
    """
    got = findings(src, "nan-loss-skip")
    assert {f.location.line for f in got} == {line(src, "# <- a"), line(src, "# <- b")}
    assert {f.severity for f in got} == {"info"}


def test_nan_loss_that_stops_training_or_skips_bad_inputs_is_fine():
    src = """
    import torch

    def train(model, loader, opt, crit):
        for x, y in loader:
            if torch.isnan(x).any():
                continue
            loss = crit(model(x), y)
            if torch.isnan(loss):
                raise FloatingPointError("loss became NaN")
            loss.backward()
            opt.step()
    """
    assert hits(src, "nan-loss-skip") == set()


def test_naive_softmax_exp():
    src = """
    import numpy as np
    import torch

    def my_softmax(x):
        return torch.exp(x) / torch.exp(x).sum(dim=1, keepdim=True)  # <- a

    def np_softmax(z):
        e = np.exp(z)
        return e / np.sum(e, axis=-1, keepdims=True)  # <- b
    """
    assert hits(src, "naive-softmax-exp") == {
        ("naive-softmax-exp", line(src, "# <- a")),
        ("naive-softmax-exp", line(src, "# <- b")),
    }


def test_stable_softmax_and_other_exp_ratios_are_fine():
    src = """
    import numpy as np
    import torch

    def stable(x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

    def shifted(z):
        z = z - np.max(z)
        return np.exp(z) / np.exp(z).sum()

    def ratio(a, b):
        return torch.exp(a) / torch.exp(b).sum()
    """
    assert hits(src, "naive-softmax-exp") == set()


def test_std_division_without_eps():
    src = """
    import numpy as np
    import torch

    def standardise(x, X, xp):
        a = (x - x.mean(0)) / x.std(0)  # <- a
        s = torch.std(x, dim=1, keepdim=True)
        b = x / s  # <- b
        c = (X - X.mean(axis=0)) / np.std(X, axis=0)  # <- c
        d = x / xp.std(x, correction=0)
        return a, b, c, d
    """
    assert hits(src, "std-division-without-eps") == {
        ("std-division-without-eps", line(src, "# <- a")),
        ("std-division-without-eps", line(src, "# <- b")),
        ("std-division-without-eps", line(src, "# <- c")),
    }


def test_guarded_or_whole_tensor_std_division_is_fine():
    src = """
    import numpy as np
    import torch

    def standardise(x, adv, X, eps=1e-8):
        a = (x - x.mean(0)) / (x.std(0) + eps)
        b = x / x.std(dim=0).clamp(min=1e-6)
        s = np.std(X, axis=0)
        s[s == 0] = 1.0
        c = X / s + X / np.maximum(s, eps)
        d = (adv - adv.mean()) / (adv.std() + 1e-8)
        e = x / x.std()
        return a, b, c, d, e
    """
    assert hits(src, "std-division-without-eps") == set()


def test_nan_to_num_on_numpy_image_gradients_is_fine():
    src = """
    import numpy as np

    def edges(img):
        gy, gx = np.gradient(img)
        gradient_mag = np.hypot(gx, gy)
        return np.nan_to_num(gradient_mag / gradient_mag.max())
    """
    assert hits(src, "nan-to-num-masking") == set()


def test_std_division_outside_ml_code_is_left_alone():
    src = """
    import numpy as np

    def t_statistic(x, y):
        s = np.std(x, ddof=1, axis=0)
        return (y - x.mean(axis=0)) / s
    """
    assert hits(src, "std-division-without-eps") == set()


def test_gaussian_kernel_normalisation_is_not_a_softmax():
    src = """
    import numpy as np

    def kernel(x, sigma2):
        phi = np.exp(-0.5 / sigma2 * x ** 2)
        return phi / phi.sum()
    """
    assert hits(src, "naive-softmax-exp") == set()


def test_nan_comparison_semantics_checked_by_assertion_helpers_are_fine():
    src = """
    import numpy as np

    class T:
        def test_nan(self, F, dat):
            self.assertFalse(F(5, 2) == float("nan"))
            np.testing.assert_array_equal(dat == np.nan, np.zeros_like(dat, dtype=bool))

    def guard(loss):
        assert loss != float("nan"), "NaN loss"  # <-
    """
    assert hits(src, "nan-equality-check") == {("nan-equality-check", line(src, "# <-"))}
