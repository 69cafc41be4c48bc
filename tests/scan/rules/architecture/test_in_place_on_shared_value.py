"""The ``in-place-on-shared-value`` rule (``mlsleuth/scan/rules/architecture/in_place_on_shared_value.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = {"in-place-on-shared-value"}
ID = "in-place-on-shared-value"


def test_skip_connection_overwritten_by_an_in_place_activation():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    class PreActBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.relu = nn.ReLU(inplace=True)
            self.conv = nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            identity = x
            out = self.relu(x)  # expect: in-place-on-shared-value
            out = self.conv(out)
            return out + identity

    class GatedUnit(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.act = nn.Sequential(nn.LeakyReLU(0.2, inplace=True), nn.Linear(d, d))

        def forward(self, h):
            out = self.act(h)  # expect: in-place-on-shared-value
            return out * h

    def mlp_block(x, w):
        y = F.relu(x, inplace=True)  # expect: in-place-on-shared-value
        return y @ w + x
    """
    check(src, RULE)


def test_transformer_residual_changed_with_augmented_assignment():
    src = """
    import torch.nn as nn

    class DecoderLayer(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.norm = nn.LayerNorm(d)

        def forward(self, hidden_states, mask=None):
            residual = hidden_states
            attn_out, _ = self.attn(hidden_states, hidden_states, hidden_states, attn_mask=mask)
            hidden_states += attn_out  # expect: in-place-on-shared-value
            return self.norm(hidden_states + residual)
    """
    check(src, RULE)
    message = findings(src, ID)[0].message
    assert "`residual`" in message and "line 10" in message and "line 13" in message


def test_numpy_previous_iterate_is_the_same_array():
    src = """
    import numpy as np

    def fit_logistic(X, y, lr=0.1, tol=1e-6):
        w = np.zeros(X.shape[1])
        for _ in range(1000):
            w_old = w
            grad = X.T @ (1 / (1 + np.exp(-X @ w)) - y) / len(y)
            w -= lr * grad  # expect: in-place-on-shared-value
            if np.linalg.norm(w - w_old) < tol:
                break
        return w

    def center(a, m):
        b = a
        np.subtract(b, m, out=b)  # expect: in-place-on-shared-value
        return b, a.std()
    """
    check(src, RULE)


def test_dataset_item_changed_in_place_compounds_every_epoch():
    src = """
    import numpy as np
    import torch
    from torch.utils.data import Dataset
    from torchvision import transforms as T

    class SpeechClips(Dataset):
        def __init__(self, waves):
            self.waveforms = [torch.as_tensor(w) for w in waves]

        def __len__(self):
            return len(self.waveforms)

        def __getitem__(self, i):
            wav = self.waveforms[i]
            wav.div_(wav.abs().max())  # expect: in-place-on-shared-value
            return wav

    class Images(Dataset):
        def __init__(self, path, mean, std):
            self.images = np.load(path)
            self.mean, self.std = mean, std

        def __getitem__(self, idx):
            img = self.images[idx]
            img -= self.mean  # expect: in-place-on-shared-value
            img /= self.std  # expect: in-place-on-shared-value
            return torch.from_numpy(img.transpose(2, 0, 1))

    class Frames(Dataset):
        def __init__(self, frames):
            self.frames = torch.stack(frames)
            self.norm = T.Normalize((0.5,), (0.5,), inplace=True)

        def __getitem__(self, i):
            return self.norm(self.frames[i])  # expect: in-place-on-shared-value
    """
    check(src, RULE)
    message = findings(src, ID)[0].message
    assert "`self.waveforms`" in message and "epoch" in message


def test_stored_frame_passed_to_an_in_place_normalize_transform():
    src = """
    import torch
    from torch.utils.data import Dataset
    from torchvision import transforms as T

    class Frames(Dataset):
        def __init__(self, frames):
            self.frames = torch.stack(frames)
            self.norm = T.Normalize((0.5,), (0.5,), inplace=True)

        def __getitem__(self, i):
            x = self.frames[i]
            x = self.norm(x)  # expect: in-place-on-shared-value
            return x
    """
    check(src, RULE)


def test_transform_object_that_changes_its_input_in_a_dataset():
    src = """
    import torch
    from torch.utils.data import Dataset

    class AddNoise:
        def __init__(self, scale):
            self.scale = scale

        def __call__(self, x):
            x.add_(torch.randn_like(x) * self.scale)  # expect: in-place-on-shared-value
            return x

    class Signals(Dataset):
        def __init__(self, data):
            self.data = torch.as_tensor(data)
            self.transform = AddNoise(0.1)

        def __getitem__(self, i):
            x = self.data[i]
            x = self.transform(x)
            return x, i
    """
    check(src, RULE)


def test_numpy_torch_bridge_shares_memory():
    src = """
    import numpy as np
    import torch

    def act(policy, obs, obs_mean, buffer):
        obs_t = torch.from_numpy(obs)
        obs_t.sub_(obs_mean)  # expect: in-place-on-shared-value
        action = policy(obs_t)
        buffer.append((obs, action))
        return action

    def scaled(t):
        a = t.numpy()
        a *= 2.0  # expect: in-place-on-shared-value
        return a, t.sum()
    """
    check(src, RULE)


def test_lightning_denoiser_target_is_the_noised_input():
    src = """
    import torch
    import torch.nn.functional as F
    import lightning as L

    class Denoiser(L.LightningModule):
        def training_step(self, batch, batch_idx):
            x, _ = batch
            clean = x
            x += 0.1 * torch.randn_like(x)  # expect: in-place-on-shared-value
            loss = F.mse_loss(self(x), clean)
            return loss
    """
    check(src, RULE)


def test_helper_that_changes_its_argument_called_from_another_module(tmp_path):
    files = {
        "prep.py": """
            def standardize(x):
                x -= x.mean(axis=0)  # expect: in-place-on-shared-value
                x /= x.std(axis=0)
                return x
        """,
        "train.py": """
            import numpy as np
            from prep import standardize

            def main(path):
                X = np.loadtxt(path)
                Xs = standardize(X)
                print(np.abs(X).max(), Xs.shape)
        """,
    }
    check_project(tmp_path, files, RULE)


def test_clean_residual_blocks_and_fresh_values_stay_silent():
    src = """
    import torch
    import torch.nn as nn

    class BasicBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(c)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            identity = x
            out = self.conv1(x)
            out = self.bn1(out)
            out = self.relu(out)
            out = self.conv2(out)
            out += identity
            return self.relu(out)

    class Cloned(nn.Module):
        def forward(self, x):
            identity = x.clone()
            x.add_(1.0)
            return x + identity

    class Rebound(nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU(inplace=True)
            self.conv = nn.Conv2d(3, 3, 1)

        def forward(self, x):
            identity = x
            x = self.conv(x)
            x = self.relu(x)
            y = x + 1
            return y + identity

    features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(inplace=True), nn.MaxPool2d(2))

    def accumulate(xs):
        total = torch.zeros(3)
        for x in xs:
            total += x
        return total

    def counters(steps):
        seen = steps
        steps += 1
        return seen, steps
    """
    check(src, RULE)


def test_datasets_that_copy_first_or_read_scalars_stay_silent():
    src = """
    import numpy as np
    import torch
    from torch.utils.data import Dataset
    from torchvision import transforms as T

    class Images(Dataset):
        def __init__(self, path, labels):
            self.images = np.load(path)
            self.labels = np.asarray(labels)
            self.norm = T.Normalize((0.5,), (0.5,))
            self.tensors = torch.as_tensor(self.images)

        def __len__(self):
            return len(self.images)

        def __getitem__(self, idx):
            img = self.images[idx].copy()
            img -= 0.5
            other = np.array(self.images[idx])
            other /= 255.0
            t = torch.tensor(self.images[idx])
            t.div_(255.0)
            y = self.labels[idx]
            y -= 1
            picked = self.images[[idx, idx + 1]]
            picked *= 2
            z = self.norm(self.tensors[idx])
            return img, other, t, y, picked, z
    """
    check(src, RULE)


def test_intended_in_place_helpers_and_state_updates_stay_silent():
    src = """
    import numpy as np
    import torch

    def normalize_(x):
        x -= x.mean()
        return None

    def standardize(x):
        x = x.copy()
        x -= x.mean(axis=0)
        return x

    def prepare(path):
        X = np.load(path)
        normalize_(X)
        Y = standardize(X)
        return X, Y

    class EMA:
        def __init__(self, model):
            self.shadow = {k: v.detach().clone() for k, v in model.state_dict().items()}

        def update(self, model, decay):
            for k, v in model.state_dict().items():
                buf = self.shadow[k]
                buf.mul_(decay).add_(v, alpha=1 - decay)

    @torch.no_grad()
    def sgd_step(params, lr):
        for p in params:
            d_p = p.grad
            p.add_(d_p, alpha=-lr)
    """
    check(src, RULE)


def test_augmented_sample_stored_back_into_the_cache():
    src = """
    import numpy as np
    from torch.utils.data import Dataset

    class CachedAudio(Dataset):
        def __init__(self, clips, augment):
            self.cache = {i: c for i, c in enumerate(clips)}
            self.augment = augment

        def __getitem__(self, i):
            clip = self.cache[i]
            clip = self.augment(clip)
            clip = np.clip(clip * 1.1, -1, 1)
            self.cache[i] = clip  # expect: in-place-on-shared-value
            return clip
    """
    check(src, RULE)


def test_cache_fills_and_lazy_loads_stay_silent():
    src = """
    import numpy as np
    from torch.utils.data import Dataset

    class Lazy(Dataset):
        def __init__(self, paths):
            self.paths = paths
            self.cache = [None] * len(paths)
            self.items = list(paths)

        def __getitem__(self, i):
            if self.cache[i] is None:
                self.cache[i] = np.loadtxt(self.paths[i])
            x = self.cache[i]
            item = self.items[i]
            if isinstance(item, str):
                item = np.loadtxt(item)
                self.items[i] = item
            same = self.items[i]
            self.items[i] = same
            return x * 2.0, item
    """
    check(src, RULE)


def test_other_branches_returns_and_state_updating_helpers_stay_silent():
    src = """
    import torch

    def fallback(p, q, weight):
        residual = torch.clamp(p - q, min=0)
        total = residual.sum()
        if weight is not None and total <= 1e-12:
            residual = p
        else:
            residual.div_(total)
        return torch.multinomial(residual, 1), p

    def selective_state_update(state, x, dt):
        new = state * torch.exp(dt) + x
        state.copy_(new)
        return (state * x).sum(-1)

    def step(recurrent_state, x, dt):
        out = selective_state_update(recurrent_state, x, dt)
        return out, recurrent_state

    class Tri(torch.nn.Module):
        def _inference_forward(self, z, chunk):
            z[:, :chunk] += 1.0
            return z

        def forward(self, z, fast=False):
            if fast:
                x = self._inference_forward(z, 4)
                return x
            return z * 2
    """
    check(src, RULE)


def test_dict_samples_changed_inside_the_stored_list():
    src = """
    from torch.utils.data import Dataset

    class Pairs(Dataset):
        def __init__(self, records, transform, mean):
            self.records = records
            self.transform = transform
            self.mean = mean

        def __getitem__(self, i):
            sample = self.records[i]
            sample["image"] = self.transform(sample["image"])  # expect: in-place-on-shared-value
            sample["depth"] -= self.mean  # expect: in-place-on-shared-value
            sample["label_id"] = int(sample["label"])
            return sample
    """
    check(src, RULE)


def test_labels_masked_in_the_input_ids_they_alias():
    src = """
    def train(model, loader, optimizer, pad_id):
        for batch in loader:
            input_ids = batch["input_ids"]
            labels = input_ids
            labels[labels == pad_id] = -100  # expect: in-place-on-shared-value
            out = model(input_ids=input_ids, labels=labels)
            out.loss.backward()
            optimizer.step()
            optimizer.zero_grad()

    def train_fixed(model, loader, optimizer, pad_id):
        for batch in loader:
            input_ids = batch["input_ids"]
            labels = input_ids.clone()
            labels[labels == pad_id] = -100
            out = model(input_ids=input_ids, labels=labels)
            out.loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    """
    check(src, RULE)


def test_same_array_handed_twice_to_a_helper_that_changes_it():
    src = """
    import numpy as np

    def log_scale(col):
        np.log1p(col, out=col)  # expect: in-place-on-shared-value
        return col

    def features(table):
        amounts = np.asarray(table["amount"], dtype=np.float64)
        scaled = log_scale(amounts)
        scaled_again = log_scale(amounts)
        return np.stack([scaled, scaled_again])
    """
    check(src, RULE)


def test_submodule_whose_forward_changes_its_input_first():
    src = """
    import torch.nn as nn

    class Branch(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.act = nn.ReLU(inplace=True)
            self.conv = nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            x = self.act(x)  # expect: in-place-on-shared-value
            return self.conv(x)

    class Residual(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.branch = Branch(c)

        def forward(self, x):
            out = self.branch(x)
            return out + x

    class Plain(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.branch = Branch(c)
            self.head = nn.Linear(c, 2)

        def forward(self, x):
            h = self.branch(x)
            return self.head(h.mean((2, 3)))
    """
    check(src, RULE)


def test_transform_pipeline_handed_to_the_dataset_changes_stored_rows(tmp_path):
    files = {
        "augment.py": """
            import torch

            class Pipeline:
                def __init__(self, steps):
                    self.steps = list(steps)

                def __call__(self, x):
                    for step in self.steps:
                        x = step(x)
                    return x

            class AddChannel:
                def __call__(self, x):
                    return x.unsqueeze(0)

            class ToFloatCopy:
                def __call__(self, x):
                    return torch.tensor(x, dtype=torch.float32)

            class Standardize:
                def __init__(self, mean, std):
                    self.mean, self.std = mean, std

                def __call__(self, x):
                    x.sub_(self.mean).div_(self.std)  # expect: in-place-on-shared-value
                    return x
        """,
        "data.py": """
            import numpy as np
            import torch
            from torch.utils.data import Dataset

            class Rows(Dataset):
                def __init__(self, rows, transform=None):
                    self.rows = rows
                    self.transform = transform

                def __len__(self):
                    return len(self.rows)

                def __getitem__(self, i):
                    x = torch.from_numpy(self.rows[i])
                    if self.transform is not None:
                        x = self.transform(x)
                    return x
        """,
        "train.py": """
            import numpy as np
            from augment import AddChannel, Pipeline, Standardize, ToFloatCopy
            from data import Rows

            def make(rows, tf):
                return Rows(rows, transform=tf)

            def main():
                rows = np.random.rand(100, 16).astype(np.float32)
                train = make(rows, Pipeline([AddChannel(), Standardize(0.5, 0.2)]))
                val = make(rows, Pipeline([ToFloatCopy(), Standardize(0.5, 0.2)]))
                return train, val
        """,
    }
    check_project(tmp_path, files, RULE)


def test_copying_pipelines_stay_silent(tmp_path):
    files = {
        "augment.py": """
            import torch

            class Pipeline:
                def __init__(self, steps):
                    self.steps = list(steps)

                def __call__(self, x):
                    for step in self.steps:
                        x = step(x)
                    return x

            class ToFloatCopy:
                def __call__(self, x):
                    return torch.tensor(x, dtype=torch.float32)

            class Standardize:
                def __init__(self, mean, std):
                    self.mean, self.std = mean, std

                def __call__(self, x):
                    x.sub_(self.mean).div_(self.std)
                    return x
        """,
        "data.py": """
            import torch
            from torch.utils.data import Dataset

            class Rows(Dataset):
                def __init__(self, rows, transform=None):
                    self.rows = rows
                    self.transform = transform

                def __getitem__(self, i):
                    x = self.rows[i]
                    return self.transform(x)
        """,
        "train.py": """
            import numpy as np
            from augment import Pipeline, Standardize, ToFloatCopy
            from data import Rows

            def main():
                rows = np.random.rand(100, 16).astype(np.float32)
                return Rows(rows, transform=Pipeline([ToFloatCopy(), Standardize(0.5, 0.2)]))
        """,
    }
    check_project(tmp_path, files, RULE)


def test_optional_in_place_helpers_tests_and_stand_in_aliases():
    src = """
    import torch
    import torch.nn as nn

    def drop_block(x, keep, inplace=False):
        if inplace:
            x.mul_(keep)
        else:
            x = x * keep
        return x

    def apply(x, keep):
        y = drop_block(x, keep)
        return y, x

    class Scale(nn.Module):
        def __init__(self, d, inplace=False):
            super().__init__()
            self.inplace = inplace
            self.w = nn.Parameter(torch.ones(d))

        def forward(self, x):
            return x.mul_(self.w) if self.inplace else x * self.w

    def test_scale_in_place():
        layer = Scale(4, inplace=True)
        x = torch.ones(2, 4)
        out = layer(x)
        assert torch.equal(out, x)

    def sample(t, r=None, context=0):
        t = t.repeat(1, 4)
        if r is not None:
            r_t = r.repeat(1, 4)
        else:
            r_t = t
        t[:, :context] = 0  # expect: in-place-on-shared-value
        return torch.stack([t, r_t])

    class Block(nn.Module):
        def __init__(self, c, down=None):
            super().__init__()
            self.relu = nn.ReLU(inplace=True)
            self.down = down
            self.conv = nn.Conv2d(c, c, 1)

        def forward(self, x):
            if self.down is not None:
                identity = self.down(x)
            else:
                identity = x
            out = self.relu(x)  # expect: in-place-on-shared-value
            return self.conv(out) + identity
    """
    check(src, RULE)
    notes = [f for f in findings(src, ID) if f.severity == "info"]
    assert len(notes) == 1 and "`r_t`" in notes[0].message


def test_option_flag_in_a_conditional_expression_stays_silent(tmp_path):
    files = {
        "layers.py": """
            import torch
            import torch.nn as nn

            class LayerScale(nn.Module):
                def __init__(self, dim, inplace=False):
                    super().__init__()
                    self.inplace = inplace
                    self.weight = nn.Parameter(torch.ones(dim))

                def forward(self, x):
                    return x.mul_(self.weight) if self.inplace else x * self.weight

            def scaled(x):
                ls = LayerScale(8)
                out = ls(x)
                return out, x
        """,
        "test_layers.py": """
            import torch
            from layers import LayerScale

            class TestLayerScale:
                def forward(self):
                    ls = LayerScale(8, inplace=True)
                    x = torch.randn(2, 8)
                    out = ls(x)
                    assert torch.equal(out, x)
        """,
    }
    check_project(tmp_path, files, RULE)


def test_buffers_kept_alive_swapped_or_overwritten_stay_silent():
    src = """
    import torch

    def reduce_grads(reduce_output, factor, group):
        all_reduce_input = reduce_output
        torch.distributed.all_reduce(reduce_output, group=group)
        reduce_output.div_(factor)
        return reduce_output, all_reduce_input

    def ping_pong(a, b, steps):
        for _ in range(steps):
            a, b = b, a
            b.mul_(2.0)
            a.add_(b)
        return a

    def lrn(input, output):
        squares = output
        torch.pow(input, 2, out=squares)
        total = squares.sum()
        torch.pow(input, 3, out=output)
        return output * total
    """
    check(src, RULE)
