"""The ``stacked-linear-no-activation`` rule (``mlsleuth/scan/rules/architecture/stacked_linear_no_activation.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"stacked-linear-no-activation"}


def test_linear_layers_stacked_without_activation():
    src = """
        from collections import OrderedDict

        import torch
        from torch import nn

        class Hyper(torch.nn.Module):
            def __init__(self, dim, layer_structure=(1, 2, 1)):
                super().__init__()
                linears = []
                for i in range(len(layer_structure) - 1):
                    linears.append(torch.nn.Linear(int(dim * layer_structure[i]), int(dim * layer_structure[i + 1])))  # expect: stacked-linear-no-activation
                self.linear = torch.nn.Sequential(*linears)

        head = nn.Sequential(nn.Linear(768, 256), nn.Dropout(0.1), nn.Linear(256, 10))  # expect: stacked-linear-no-activation
        mlp = nn.Sequential(OrderedDict([("fc1", nn.Linear(64, 64)), ("fc2", nn.Linear(64, 64))]))  # expect: stacked-linear-no-activation

        class Proj(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc1 = nn.Linear(d, 4 * d)
                self.fc2 = nn.Linear(4 * d, d)

            def forward(self, x):
                return self.fc2(self.fc1(x))  # expect: stacked-linear-no-activation

        class Proj2(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.up = nn.Linear(d, d * 2)
                self.down = nn.Linear(d * 2, d)

            def forward(self, x):
                h = self.up(x)
                return self.down(h)  # expect: stacked-linear-no-activation
        """
    check(src, RULE)


def test_activations_and_bottlenecks_stay_silent():
    src = """
        import torch
        from torch import nn

        class Lora(nn.Module):
            def __init__(self, dim, rank=8):
                super().__init__()
                self.linear = nn.Sequential(nn.Linear(dim, rank, bias=False), nn.Linear(rank, dim))

        class Mlp(nn.Module):
            def __init__(self, dim, sizes=(1, 2, 1)):
                super().__init__()
                layers = []
                for i in range(len(sizes) - 1):
                    layers.append(nn.Linear(dim * sizes[i], dim * sizes[i + 1]))
                    if i < len(sizes) - 2:
                        layers.append(nn.ReLU())
                self.net = nn.Sequential(*layers)

        class Proj(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc1 = nn.Linear(d, 4 * d)
                self.fc2 = nn.Linear(4 * d, d)

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))

        bottleneck = nn.Sequential(nn.Linear(512, 32), nn.Linear(32, 512))
        activated = nn.Sequential(nn.Linear(768, 256), nn.GELU(), nn.Linear(256, 10))
        normed = nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64), nn.Linear(64, 64))
        """
    check(src, RULE)


def test_toy_models_of_unit_tests_stay_silent():
    src = """
        from torch import nn

        def test_checkpointing_keeps_outputs():
            model = nn.Sequential(nn.Linear(10, 10), nn.Linear(10, 10), nn.ReLU())
            assert model is not None

        class TestOffload:
            def model(self):
                return nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
        """
    check(src, RULE)


def test_a_layout_fixed_by_published_checkpoints_is_info_only():
    # a speaker-embedding head of a model family that is loaded with from_pretrained: the two projections
    # are what the released weights hold, so the finding is a note, not a warning
    src = """
        import torch
        from torch import nn
        from transformers import PreTrainedModel

        class SpeechEncoderPreTrainedModel(PreTrainedModel):
            base_model_prefix = "encoder"

        class SpeechEncoderForSpeakerEmbedding(SpeechEncoderPreTrainedModel):
            def __init__(self, config):
                super().__init__(config)
                self.embed = nn.Linear(config.hidden_size, config.hidden_size)
                self.project = nn.Linear(config.hidden_size, config.hidden_size)

            def forward(self, pooled):
                vector = self.embed(pooled)
                return self.project(vector)  # expect: stacked-linear-no-activation
        """
    check(src, RULE)
    (f,) = findings(src, "stacked-linear-no-activation")
    assert f.severity == "info" and "published checkpoints" in f.message
