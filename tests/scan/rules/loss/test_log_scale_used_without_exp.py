"""The ``log-scale-used-without-exp`` rule (``mlsleuth/scan/rules/loss/log_scale_used_without_exp.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"log-scale-used-without-exp"}


def test_log_parameterised_scales_used_raw():
    src = """
    import math
    import numpy as np
    import torch
    import torch.nn.functional as F
    from torch import nn

    class CLIP(nn.Module):
        def __init__(self):
            super().__init__()
            self.visual = nn.Linear(32, 16)
            self.text = nn.Linear(32, 16)
            self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

        def forward(self, img, txt):
            image_features = F.normalize(self.visual(img), dim=-1)
            text_features = F.normalize(self.text(txt), dim=-1)
            logits_per_image = self.logit_scale * image_features @ text_features.T  # expect: log-scale-used-without-exp
            scale = self.logit_scale
            logits_per_text = scale * text_features @ image_features.t()  # expect: log-scale-used-without-exp
            return logits_per_image, logits_per_text

    class ProtoHead(nn.Module):
        def __init__(self, dim, n):
            super().__init__()
            self.protos = nn.Parameter(torch.randn(n, dim))
            self.log_tau = nn.Parameter(torch.zeros(()))
            self.temp = nn.Parameter(torch.tensor(math.log(10.0)))

        def forward(self, x):
            sim = F.normalize(x, dim=-1) @ F.normalize(self.protos, dim=-1).T
            a = sim / self.log_tau  # expect: log-scale-used-without-exp
            logits = F.cosine_similarity(x[:, None], self.protos[None], dim=-1) * self.temp  # expect: log-scale-used-without-exp
            return a + logits
    """
    check(src, RULE)


def test_exponentiated_direct_scales_and_lagrange_terms_are_fine():
    src = """
    import numpy as np
    import torch
    import torch.nn.functional as F
    from torch import nn

    class CLIP(nn.Module):
        def __init__(self):
            super().__init__()
            self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))
            self.direct_scale = nn.Parameter(torch.ones([]) * (1 / 0.07))
            self.log_tau = nn.Parameter(torch.zeros(()))

        def forward(self, image_features, text_features):
            a = self.logit_scale.exp() * image_features @ text_features.T
            b = torch.exp(self.logit_scale) * image_features @ text_features.T
            c = self.logit_scale.clamp(max=4.6052).exp() * image_features @ text_features.T
            d = self.direct_scale * image_features @ text_features.T
            e = (image_features @ text_features.T) / self.log_tau.exp()
            return a + b + c + d + e

    class SAC(nn.Module):
        def __init__(self):
            super().__init__()
            self.log_alpha = nn.Parameter(torch.tensor(np.log(0.1)))

        def alpha_loss(self, log_prob, target_entropy):
            return -(self.log_alpha * (log_prob + target_entropy).detach()).mean()

    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.log_scale = nn.Parameter(torch.zeros(8))

        def forward(self, x):
            return x + self.log_scale
    """
    check(src, RULE)


def test_instance_of_a_model_from_another_module(tmp_path):
    files = {
        "model.py": """
            import math
            import torch
            from torch import nn

            class DualEncoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.q = nn.Linear(8, 8)
                    self.d = nn.Linear(8, 8)
                    self.logit_scale = nn.Parameter(torch.tensor(math.log(20.0)))
        """,
        "train.py": """
            import torch
            import torch.nn.functional as F
            from model import DualEncoder

            model = DualEncoder()
            q, d = torch.randn(4, 8), torch.randn(4, 8)
            scores = model.q(q) @ model.d(d).T
            loss = F.cross_entropy(model.logit_scale * scores, torch.arange(4))  # expect: log-scale-used-without-exp
            ok = F.cross_entropy(model.logit_scale.exp() * scores, torch.arange(4))
        """,
    }
    check_project(tmp_path, files, RULE)
