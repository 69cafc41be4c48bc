"""The ``result-discarded`` rule (``mlsleuth/scan/rules/training_loop/result_discarded.py``)."""

from __future__ import annotations

import textwrap

from mlsleuth.scan.analyze import analyze_source
from scan.helpers import check, check_project, findings, messages

RULE = "result-discarded"


# -- positives ------------------------------------------------------------------------------


def test_vision_batch_moved_with_a_bare_to():
    src = """
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader

    def train(model, train_set, device, optimizer):
        model.to(device)
        train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
        for images, labels in train_loader:
            images.to(device)  # expect: result-discarded
            labels.to(device)  # expect: result-discarded
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """
    check(src, {RULE})
    first = findings(src, RULE)[0]
    assert "`images`" in first.message and "device" in first.message
    assert first.category == "training-loop" and first.severity == "warning"


def test_nlp_fields_of_a_dict_batch_cast_and_moved():
    src = """
    import torch

    def fit(model, train_dataloader, optimizer, device):
        for step, batch in enumerate(train_dataloader):
            batch["labels"].long()  # expect: result-discarded
            mask = batch["attention_mask"]
            mask.bool()  # expect: result-discarded
            out = model(input_ids=batch["input_ids"].to(device), attention_mask=mask, labels=batch["labels"])
            out.loss.backward()
            optimizer.step()
    """
    check(src, {RULE})
    dtype = [f for f in findings(src, RULE) if "mask" in f.message][0]
    assert "dtype" in dtype.message


def test_forward_drops_dropout_activation_and_projection_outputs():
    src = """
    import torch.nn as nn

    class Classifier(nn.Module):
        def __init__(self, dim, classes):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.act = nn.GELU()
            self.dropout = nn.Dropout(0.3)
            self.head = nn.Linear(dim, classes)

        def forward(self, x):
            h = self.proj(x)
            self.act(h)  # expect: result-discarded
            self.dropout(h)  # expect: result-discarded
            return self.head(h)

    class Encoder(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.fc = nn.Linear(dim, dim)

        def forward(self, x):
            self.norm(x)  # expect: result-discarded
            return self.fc(x)
    """
    check(src, {RULE})
    found = findings(src, RULE)
    assert "no activation" in found[0].message and "no dropout" in found[1].message


def test_functional_calls_as_statements():
    src = """
    import torch
    import torch.nn.functional as F

    class Block(torch.nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.lin = torch.nn.Linear(dim, dim)

        def forward(self, x):
            h = self.lin(x)
            F.relu(h)  # expect: result-discarded
            F.dropout(h, 0.1, self.training)  # expect: result-discarded
            torch.clamp(h, -5, 5)  # expect: result-discarded
            return h

    def embed(spec):
        F.normalize(spec, dim=-1)  # expect: result-discarded
        return spec @ spec.T
    """
    check(src, {RULE})


def test_rl_recurrent_state_and_annotated_observations():
    src = """
    import torch

    class Agent:
        def __init__(self, policy):
            self.policy = policy
            self.hidden = torch.zeros(1, 1, 128)

        def act(self, obs: torch.Tensor):
            obs.float()  # expect: result-discarded
            logits, hidden = self.policy(obs, self.hidden)
            self.hidden.detach()  # expect: result-discarded
            return torch.distributions.Categorical(logits=logits).sample()

    def clip_advantages(advantages: torch.Tensor) -> torch.Tensor:
        advantages.clamp(-10.0, 10.0)  # expect: result-discarded
        return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    """
    check(src, {RULE})
    graph = [f for f in findings(src, RULE) if "detach" in f.message][0]
    assert "autograd graph" in graph.message


def test_tabular_frame_and_array_left_unchanged():
    src = """
    import numpy as np
    import pandas as pd

    df = pd.read_csv("train.csv")
    df.drop(columns=["customer_id"])  # expect: result-discarded
    df.fillna(0)  # expect: result-discarded
    X = df.drop(columns=["churn"]).values
    X.astype(np.float32)  # expect: result-discarded
    y = df["churn"].values
    print(X.dtype, y.mean())
    """
    check(src, {RULE})
    drop = findings(src, RULE)[0]
    assert "`df`" in drop.message and "frame" in drop.message


def test_audio_helper_parameter_filled_with_tensors_by_every_caller():
    src = """
    import torch

    def to_mono(waveform):
        waveform.unsqueeze(0)  # expect: result-discarded
        waveform.cuda()  # expect: result-discarded
        return waveform.mean(dim=0)

    def load_clip(n):
        return to_mono(torch.randn(2, n))

    def load_noise(n):
        return to_mono(torch.zeros(2, n))
    """
    check(src, {RULE})


def test_lightning_step_batch_and_buffer_moved_without_assignment():
    src = """
    import torch
    import torch.nn.functional as F
    import lightning as L

    class LitModel(L.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.register_buffer("class_weights", torch.ones(10))

        def training_step(self, batch, batch_idx):
            x, y = batch
            x.float()  # expect: result-discarded
            self.class_weights.to(self.device)  # expect: result-discarded
            return F.cross_entropy(self.net(x), y, weight=self.class_weights)
    """
    check(src, {RULE})


def test_chained_conversion_and_a_local_layer():
    src = """
    import torch
    import torch.nn as nn

    def features(x):
        pool = nn.AdaptiveAvgPool2d(1)
        pool(x)  # expect: result-discarded
        return x.flatten(1)

    def main():
        t = torch.arange(10)
        t.float().to("cuda")  # expect: result-discarded
        print(t.sum())
    """
    check(src, {RULE})


# -- clean look-alikes --------------------------------------------------------------------------


def test_module_conversions_work_in_place_and_stay_silent():
    src = """
    import torch
    import torch.nn as nn
    import torchvision

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

    def setup(device):
        model = Net()
        model.to(device)
        model.cuda()
        model.half()
        model.float()
        backbone = torchvision.models.resnet18()
        backbone.to(device)
        model.fc.to(device)
        for m in model.modules():
            m.float()
        return model, backbone
    """
    check(src, {RULE})


def test_in_place_forms_stay_silent():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import pandas as pd

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)
            self.act = nn.ReLU(inplace=True)
            self.drop = nn.Dropout(0.1, True)

        def forward(self, x):
            h = self.lin(x)
            self.act(h)
            self.drop(h)
            F.relu(h, inplace=True)
            F.dropout(h, 0.2, self.training, True)
            h.clamp_(0, 6)
            torch.clamp(h, 0, 6, out=h)
            F.normalize(self.lin.weight.data, dim=-1, out=self.lin.weight.data)
            return h

    df = pd.read_csv("data.csv")
    df.fillna(0, inplace=True)
    df.drop(columns=["id"], inplace=True)
    print(df.shape)
    """
    check(src, {RULE})


def test_containers_and_unknown_receivers_stay_silent():
    src = """
    import torch

    def collect(seen, items, stats, batch, device, obj):
        seen.add(3)
        items.append(4)
        stats.update({"loss": 1.0})
        batch.to(device)
        obj.float()
        obj.to(device)
        return seen, items, stats, batch, obj

    def run(loader, model, device):
        for batch in loader:
            batch.to(device)
            model(**batch)
    """
    check(src, {RULE})


def test_whole_model_and_batchnorm_calls_stay_silent():
    src = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(16)
            self.fc = nn.Linear(16, 16)

        def forward(self, x):
            self.bn(x)
            return self.fc(x)

    @torch.no_grad()
    def recalibrate_bn(model, loader):
        model.train()
        for images, _ in loader:
            model(images)
        return model
    """
    check(src, {RULE})


def test_layers_with_hooks_stay_silent():
    src = """
    import torch.nn as nn

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.ReLU()
            self.fc.register_forward_hook(lambda m, i, o: print(o.shape))

        def forward(self, x):
            self.fc(x)
            return self.act(x)
    """
    check(src, {RULE})


def test_probes_tests_and_benchmarks_stay_silent():
    src = """
    import time
    import pytest
    import torch
    import torch.nn.functional as F

    def cuda_works(x):
        try:
            x.cuda()
        except RuntimeError:
            return False
        return x is not None

    def test_view_rejects_bad_shape():
        x = torch.zeros(3, 4)
        with pytest.raises(RuntimeError):
            x.view(5, 5)
        assert x.shape == (3, 4)

    def measure(x):
        for _ in range(100):
            F.relu(x)
        start = time.perf_counter()
        return time.perf_counter() - start, x

    def benchmark_softmax(x):
        torch.sigmoid(x)
        return x
    """
    check(src, {RULE})


def test_value_never_read_again_stays_silent():
    src = """
    import torch

    def log_batch(images: torch.Tensor, writer):
        writer.add_images("batch", images)
        images.cpu()
    """
    check(src, {RULE})


def test_project_class_with_its_own_clamp_stays_silent():
    src = """
    import torch

    class Boxes:
        def __init__(self, t):
            self.t = t

        def clamp(self, h, w):
            self.t[:, 0::2].clamp_(0, w)
            self.t[:, 1::2].clamp_(0, h)

    def postprocess(boxes, h, w):
        boxes.clamp(h, w)
        return boxes
    """
    check(src, {RULE})


def test_notebook_cell_preview_stays_silent_but_device_move_is_reported():
    src = """
    import pandas as pd
    import torch

    df = pd.read_csv("train.csv")
    df.drop(columns=["id"])
    x = torch.tensor(df.values)
    x.to("cuda")
    print(df.shape, x.device)
    """
    result = analyze_source(textwrap.dedent(src), "explore.ipynb")
    lines = sorted(f.location.line for f in result.findings if f.rule == RULE)
    assert lines == [8], lines  # the device move only: a bare frame expression previews the frame
    assert len(messages(src, RULE)) == 2  # as a script, both lines are lost updates


def test_hf_batch_encoding_whole_batch_to_is_silent():
    src = """
    import torch
    from transformers import AutoTokenizer

    def encode(texts, device):
        tok = AutoTokenizer.from_pretrained("bert-base-uncased")
        enc = tok(texts, return_tensors="pt", padding=True)
        enc.to(device)
        return enc
    """
    check(src, {RULE})


def test_layers_of_a_module_list_and_a_sequential_head_dropped():
    src = """
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)

        def forward(self, x):
            return self.fc(x)

    class MLP(nn.Module):
        def __init__(self, d, n):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])
            self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
            self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(d, 1))
            self.bn_head = nn.Sequential(nn.BatchNorm1d(d), nn.Linear(d, 1))

        def forward(self, x):
            for layer in self.layers:
                layer(x)  # expect: result-discarded
            for block in self.blocks:
                block(x)  # expect: result-discarded
            self.bn_head(x)
            self.head(x)  # expect: result-discarded
            return x
    """
    check(src, {RULE})


def test_model_outputs_and_split_frames_left_unchanged():
    src = """
    import pandas as pd
    import torch.nn as nn
    from sklearn.model_selection import train_test_split

    class Regressor(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 1)

        def forward(self, x):
            return self.fc(x)

    def predict(batch):
        model = Regressor()
        preds = model(batch)
        preds.cpu()  # expect: result-discarded
        return preds.numpy()

    frame = pd.read_parquet("rows.parquet")
    train_df, test_df = train_test_split(frame, test_size=0.2)
    train_df.dropna()  # expect: result-discarded
    test_df.fillna(0)  # expect: result-discarded
    print(train_df.shape, test_df.shape)
    """
    check(src, {RULE})


def test_numpy_preview_in_a_notebook_cell_stays_silent():
    src = """
    import numpy as np

    feats = np.load("feats.npy")
    feats.astype(np.float16)
    print(feats.dtype)
    """
    result = analyze_source(textwrap.dedent(src), "explore.ipynb")
    assert [f for f in result.findings if f.rule == RULE] == []


def test_project_class_with_an_in_place_flatten_and_tensors_passed_from_another_module(tmp_path):
    files = {
        "structures.py": """
            class Tree:
                def __init__(self, nodes):
                    self.nodes = nodes

                def flatten(self):
                    self.nodes = [n for group in self.nodes for n in group]
            """,
        "prep.py": """
            import torch

            def center(x):
                x.float()  # expect: result-discarded
                return x - x.mean()
            """,
        "train.py": """
            import torch
            from prep import center
            from structures import Tree

            def run(groups):
                tree = Tree(groups)
                tree.flatten()
                feats = center(torch.randn(4, 8))
                return tree, feats
            """,
    }
    check_project(tmp_path, files, {RULE})


# -- project functions whose only effect is their result -----------------------------------------


def test_vision_residual_block_called_as_a_statement_in_forward():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    class ResBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            h = F.relu(self.conv1(x))
            return F.relu(x + self.conv2(h))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 32, 3, padding=1)
            self.res = ResBlock(32)
            self.head = nn.Linear(32, 10)

        def forward(self, images):
            x = F.relu(self.stem(images))
            self.res(x)  # expect: result-discarded
            return self.head(x.mean(dim=(2, 3)))
    """
    check(src, {RULE})
    (f,) = findings(src, RULE)
    assert "ResBlock.forward" in f.message and "`x`" in f.message


def test_nlp_helper_from_another_module_called_as_a_statement(tmp_path):
    files = {
        "text_utils.py": """
            import torch
            import torch.nn.functional as F

            def l2_normalize(emb, eps=1e-8):
                norm = emb.norm(dim=-1, keepdim=True).clamp_min(eps)
                return emb / norm
            """,
        "train.py": """
            import torch
            import torch.nn.functional as F
            from text_utils import l2_normalize

            def step(encoder, batch, temperature, optimizer):
                anchors = encoder(batch["query_ids"])
                positives = encoder(batch["doc_ids"])
                l2_normalize(anchors)  # expect: result-discarded
                l2_normalize(positives)  # expect: result-discarded
                logits = anchors @ positives.T / temperature
                loss = F.cross_entropy(logits, torch.arange(len(logits)))
                loss.backward()
                optimizer.step()
            """,
    }
    check_project(tmp_path, files, {RULE})


def test_tabular_scaler_method_on_a_project_instance():
    src = """
    import torch

    class Standardizer:
        def __init__(self, mean, std):
            self.mean = mean
            self.std = std

        def transform(self, x):
            return (x - self.mean) / (self.std + 1e-6)

    def fit(model, loader, optimizer, stats):
        scaler = Standardizer(stats["mean"], stats["std"])
        for features, target in loader:
            scaler.transform(features)  # expect: result-discarded
            loss = torch.nn.functional.mse_loss(model(features), target)
            loss.backward()
            optimizer.step()
    """
    check(src, {RULE})


def test_audio_augmentation_method_through_self_in_lightning_step():
    src = """
    import torch
    import lightning as L

    class KeywordSpotter(L.LightningModule):
        def spec_augment(self, spec, width=8):
            t = torch.randint(0, spec.size(-1) - width, (1,)).item()
            mask = torch.ones_like(spec)
            mask[..., t:t + width] = 0
            return spec * mask

        def training_step(self, batch, batch_idx):
            spec, label = batch
            self.spec_augment(spec)  # expect: result-discarded
            logits = self.net(spec)
            return torch.nn.functional.cross_entropy(logits, label)
    """
    check(src, {RULE})


def test_rl_helper_chain_and_comprehensions_over_a_batch():
    src = """
    import torch

    def standardize(x):
        return (x - x.mean()) / (x.std() + 1e-8)

    def scaled(adv, clip):
        return standardize(adv).clamp(-clip, clip)

    def update(policy, loader, optimizer, device):
        for batch in loader:
            [t.to(device) for t in batch]  # expect: result-discarded
            {k: v.float() for k, v in batch.items()}  # expect: result-discarded
            obs, act, adv = batch
            scaled(adv, 5.0)  # expect: result-discarded
            logp = policy(obs).log_prob(act)
            loss = -(logp * adv).mean()
            loss.backward()
            optimizer.step()
    """
    check(src, {RULE})
    msgs = [f.message for f in findings(src, RULE)]
    assert any("builds a new list" in m and "`batch`" in m for m in msgs)


def test_module_list_block_chain_in_sequential():
    src = """
    import torch.nn as nn

    class MLPBlock(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)
            self.act = nn.GELU()

        def forward(self, x):
            return self.act(self.fc(x))

    class Tower(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.body = nn.Sequential(MLPBlock(d), nn.Dropout(0.1))
            self.out = nn.Linear(d, 1)

        def forward(self, x):
            self.body(x)  # expect: result-discarded
            return self.out(x)
    """
    check(src, {RULE})


# -- look-alikes: project code that acts, or whose effect the scan cannot see ---------------------


def test_helpers_that_log_mutate_check_or_return_their_input_stay_silent():
    src = """
    import logging
    import torch

    log = logging.getLogger(__name__)

    def report(x):
        log.info("mean %s", x.mean())
        return x.mean()

    def scale_(x, s):
        x.mul_(s)
        return x * 1

    def fill(buf, idx, v):
        buf[idx] = v
        return buf.sum()

    def check_shape(x):
        assert x.dim() == 4, x.shape
        return x.shape[0]

    def passthrough(x):
        return x

    def train(model, loader):
        for x, y in loader:
            report(x)
            scale_(x, 0.5)
            fill(x, 0, 1.0)
            check_shape(x)
            passthrough(x)
            model(x).sum().backward()
    """
    check(src, {RULE})


def test_modules_with_state_caches_hooks_or_stateful_layers_stay_silent():
    src = """
    import torch
    import torch.nn as nn

    class RunningNorm(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.register_buffer("mean", torch.zeros(d))

        def forward(self, x):
            self.mean.mul_(0.99).add_(0.01 * x.mean(0))
            return x - self.mean

    class KVCache(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.proj = nn.Linear(d, d)

        def forward(self, x):
            self.last = self.proj(x)
            return self.last

    class ConvBN(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 3)
            self.bn = nn.BatchNorm2d(c)

        def forward(self, x):
            return self.bn(self.conv(x))

    class Net(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.norm = RunningNorm(d)
            self.cache = KVCache(d)
            self.cbn = ConvBN(d)

        def forward(self, x, img):
            self.norm(x)
            self.cache(x)
            self.cbn(img)
            return x
    """
    check(src, {RULE})


def test_module_in_a_file_with_forward_hooks_stays_silent():
    src = """
    import torch.nn as nn

    class Probe(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)

        def forward(self, x):
            return self.fc(x)

    class Net(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.probe = Probe(d)
            self.feats = []
            self.probe.register_forward_hook(lambda m, i, o: self.feats.append(o))

        def forward(self, x):
            self.probe(x)
            return x
    """
    check(src, {RULE})


def test_no_grad_ema_update_and_unresolved_calls_stay_silent():
    src = """
    import torch
    import wandb

    class EMA:
        def __init__(self, model, decay):
            self.shadow = [p.detach().clone() for p in model.parameters()]
            self.decay = decay

        @torch.no_grad()
        def update(self, model):
            for s, p in zip(self.shadow, model.parameters()):
                s.mul_(self.decay).add_(p, alpha=1 - self.decay)
            return self.decay

    def log_stats(x):
        wandb.log({"mean": x.mean().item()})
        return x.mean()

    def train(model, loader, ema):
        for x, y in loader:
            model(x).sum().backward()
            ema.update(model)
            log_stats(x)
            print(x)
    """
    check(src, {RULE})


def test_side_effect_comprehensions_stay_silent():
    src = """
    import torch

    def run(models, optimizers, loader, device, meters):
        [m.to(device) for m in models]
        [opt.step() for opt in optimizers]
        for batch in loader:
            [meter.update(v) for meter, v in zip(meters, batch)]
            [print(t.shape) for t in batch]
            x = batch[0]
            models[0](x)
    """
    check(src, {RULE})


def test_module_call_in_a_project_that_registers_hooks_elsewhere_stays_silent(tmp_path):
    files = {
        "features.py": """
            FEATURES = {}

            def capture(module, name):
                module.register_forward_hook(lambda m, i, o: FEATURES.__setitem__(name, o))
            """,
        "model.py": """
            import torch.nn as nn

            class Encoder(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.fc = nn.Linear(d, d)

                def forward(self, x):
                    return self.fc(x).relu()

            class Probe(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.encoder = Encoder(d)

                def forward(self, x):
                    self.encoder(x)
                    return x
            """,
    }
    check_project(tmp_path, files, {RULE})


def test_encoder_whose_forward_runs_a_module_list_of_pure_blocks():
    src = """
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.norm = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            return x + self.mlp(self.norm(x))

    class Encoder(nn.Module):
        def __init__(self, d, depth):
            super().__init__()
            self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])

        def forward(self, x):
            if torch.jit.is_scripting():
                return x * 1.0
            for blk in self.blocks:
                x = blk(x)
            return x

    class SpeechModel(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.encoder = Encoder(d, 4)
            self.ctc = nn.Linear(d, 32)

        def forward(self, feats):
            self.encoder(feats)  # expect: result-discarded
            return self.ctc(feats).log_softmax(-1)
    """
    check(src, {RULE})
