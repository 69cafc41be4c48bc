"""The ``loss-broadcasts-column-against-vector`` rule (``mlsleuth/scan/rules/loss/loss_broadcasts_column_against_vector.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = {"loss-broadcasts-column-against-vector"}


# -- positives ---------------------------------------------------------------------------------------


def test_tabular_regression_tensor_dataset_and_mse():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        df = pd.read_csv("housing.csv")
        X = torch.tensor(df.drop(columns=["price"]).values, dtype=torch.float32)
        y = torch.tensor(df["price"].values, dtype=torch.float32)
        loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)

        class Regressor(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.BatchNorm1d(64), nn.Linear(64, 1))

            def forward(self, x):
                return self.net(x)

        model = Regressor(X.shape[1])
        criterion = nn.MSELoss()
        opt = torch.optim.Adam(model.parameters())
        for epoch in range(10):
            for xb, yb in loader:
                pred = model(xb)
                loss = criterion(pred, yb)  # expect: loss-broadcasts-column-against-vector
                opt.zero_grad()
                loss.backward()
                opt.step()
    """
    check(src, RULE)
    (found,) = findings(src, "loss-broadcasts-column-against-vector")
    assert "(N, 1)" in found.message and "(N,)" in found.message


def test_time_series_lstm_last_step_and_l1():
    src = """
        import torch
        import torch.nn as nn
        from torch.utils.data import Dataset, DataLoader

        class Windows(Dataset):
            def __init__(self, series, width):
                self.series = series
                self.width = width

            def __len__(self):
                return len(self.series) - self.width

            def __getitem__(self, i):
                window = torch.tensor(self.series[i:i + self.width]).unsqueeze(-1)
                return window, float(self.series[i + self.width])

        class Forecaster(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(input_size=1, hidden_size=32, batch_first=True)
                self.fc = nn.Linear(32, 1)

            def forward(self, x):
                out, (h, c) = self.lstm(x)
                return self.fc(out[:, -1, :])

        def train(series):
            loader = DataLoader(Windows(series, 24), batch_size=32, shuffle=True)
            model = Forecaster()
            loss_fn = nn.L1Loss()
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            for x, y in loader:
                loss = loss_fn(model(x), y)  # expect: loss-broadcasts-column-against-vector
                opt.zero_grad()
                loss.backward()
                opt.step()
    """
    check(src, RULE)


def test_model_and_dataset_in_other_files_smooth_l1(tmp_path):
    check_project(tmp_path, {
        "model.py": """
            from torch import nn

            class AgeNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
                    self.head = nn.Linear(16, 1)

                def forward(self, img):
                    return self.head(self.features(img))
        """,
        "data.py": """
            import pandas as pd
            import torch
            from torch.utils.data import Dataset

            class Faces(Dataset):
                def __init__(self, csv):
                    frame = pd.read_csv(csv)
                    self.ages = torch.tensor(frame["age"].values, dtype=torch.float32)
                    self.paths = frame["path"].tolist()

                def __len__(self):
                    return len(self.paths)

                def __getitem__(self, idx):
                    return load_image(self.paths[idx]), self.ages[idx]
        """,
        "train.py": """
            import torch
            import torch.nn.functional as F
            from torch.utils.data import DataLoader
            from data import Faces
            from model import AgeNet

            net = AgeNet().to("cuda")
            train_loader = DataLoader(Faces("train.csv"), batch_size=16, shuffle=True)
            opt = torch.optim.SGD(net.parameters(), lr=0.01)
            for images, ages in train_loader:
                preds = net(images.cuda())
                loss = F.smooth_l1_loss(preds, ages.cuda())  # expect: loss-broadcasts-column-against-vector
                loss.backward()
                opt.step()
                opt.zero_grad()
        """,
    }, RULE)


def test_hand_written_squared_error_audio_scores():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import Dataset, DataLoader

        class Clips(Dataset):
            def __init__(self, specs, table):
                self.specs = specs
                self.mos = pd.read_csv(table)["mos"].to_numpy()

            def __getitem__(self, k):
                return self.specs[k], torch.tensor(self.mos[k], dtype=torch.float32)

        class Quality(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Conv1d(80, 64, 5), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten())
                self.out = nn.Linear(64, 1)

            def forward(self, spec):
                return self.out(self.body(spec))

        def fit(specs, epochs):
            model = Quality()
            opt = torch.optim.Adam(model.parameters())
            for _ in range(epochs):
                for spec, mos in DataLoader(Clips(specs, "mos.csv"), batch_size=8):
                    score = model(spec)
                    loss = ((score - mos) ** 2).mean()  # expect: loss-broadcasts-column-against-vector
                    other = torch.abs(score - mos).sum()  # expect: loss-broadcasts-column-against-vector
                    opt.zero_grad()
                    (loss + other).backward()
                    opt.step()
    """
    check(src, RULE)


def test_text_classifier_bce_with_logits_on_final_hidden_state():
    src = """
        import torch
        from torch import nn
        from torch.utils.data import Dataset, DataLoader

        class Reviews(Dataset):
            def __init__(self, ids, labels):
                self.ids = ids
                self.labels = labels

            def __getitem__(self, i):
                return torch.tensor(self.ids[i]), int(self.labels[i])

        class Sentiment(nn.Module):
            def __init__(self, vocab):
                super().__init__()
                self.emb = nn.Embedding(vocab, 100)
                self.rnn = nn.GRU(100, 128, batch_first=True)
                self.cls = nn.Linear(128, 1)

            def forward(self, tokens):
                _, h = self.rnn(self.emb(tokens))
                return self.cls(h[-1])

        class Trainer:
            def __init__(self, ids, labels):
                self.model = Sentiment(20000)
                self.criterion = nn.BCEWithLogitsLoss()
                self.loader = DataLoader(Reviews(ids, labels), batch_size=32, shuffle=True)

            def epoch(self):
                for tokens, label in self.loader:
                    logits = self.model(tokens)
                    loss = self.criterion(logits, label.float())  # expect: loss-broadcasts-column-against-vector
                    loss.backward()
    """
    check(src, RULE)
    (found,) = findings(src, "loss-broadcasts-column-against-vector")
    assert "ValueError" in found.message


def test_wrong_side_fixed_and_tuple_returning_model():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        class Twin(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(16, 8)
                self.reg = nn.Linear(8, 1)

            def forward(self, x):
                z = torch.relu(self.enc(x))
                return self.reg(z), z

        def run(features, targets):
            loader = DataLoader(TensorDataset(features, targets.view(-1)), batch_size=128)
            twin = Twin()
            for x, t in loader:
                out, z = twin(x)
                a = F.mse_loss(out.view(-1), t.unsqueeze(1))  # expect: loss-broadcasts-column-against-vector
                b = F.huber_loss(out, t)  # expect: loss-broadcasts-column-against-vector
                (a + b).backward()
    """
    check(src, RULE)


def test_lightning_step_reads_its_own_train_dataloader():
    src = """
        import lightning as L
        import pandas as pd
        import torch
        import torch.nn.functional as F
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        class Yield(L.LightningModule):
            def __init__(self, features, target):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1))
                self.data = TensorDataset(torch.tensor(features, dtype=torch.float32),
                                          torch.tensor(target, dtype=torch.float32))

            def forward(self, x):
                return self.net(x)

            def training_step(self, batch, batch_idx):
                x, y = batch
                loss = F.mse_loss(self(x), y)  # expect: loss-broadcasts-column-against-vector
                self.log("train_loss", loss)
                return loss

            def train_dataloader(self):
                return DataLoader(self.data, batch_size=64, shuffle=True)

        crops = pd.read_csv("crops.csv")
        model = Yield(crops.drop(columns=["yield"]).values, crops["yield"].values)
    """
    check(src, RULE)


def test_loader_model_and_criterion_through_a_training_function():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import Dataset, DataLoader

        class Households(Dataset):
            def __init__(self, table):
                self.x = torch.tensor(table[:, :-1], dtype=torch.float32)
                self.y = torch.tensor(table[:, -1], dtype=torch.float32)

            def __len__(self):
                return len(self.y)

            def __getitem__(self, i):
                return self.x[i], self.y[i]

        def train_epoch(net, loader, criterion, optimizer, device):
            net.train()
            for step, (inputs, targets) in enumerate(loader):
                inputs, targets = inputs.to(device), targets.to(device)
                optimizer.zero_grad()
                loss = criterion(net(inputs), targets)  # expect: loss-broadcasts-column-against-vector
                loss.backward()
                optimizer.step()

        def main():
            table = pd.read_csv("energy.csv").to_numpy()
            net = nn.Sequential(nn.Linear(7, 64), nn.ReLU(), nn.Linear(64, 1))
            opt = torch.optim.Adam(net.parameters())
            train_epoch(net, DataLoader(Households(table), batch_size=256, shuffle=True), nn.MSELoss(), opt, "cpu")
    """
    check(src, RULE)


def test_loaders_returned_by_a_helper_of_another_module(tmp_path):
    check_project(tmp_path, {
        "loaders.py": """
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            FEATURES = ["temp", "hour", "weekday", "holiday"]

            def get_loaders(frame, cut):
                x = torch.tensor(frame[FEATURES].values, dtype=torch.float32)
                load = torch.tensor(frame["load"].values, dtype=torch.float32)
                train_dl = DataLoader(TensorDataset(x[:cut], load[:cut]), batch_size=128, shuffle=True)
                return train_dl, DataLoader(TensorDataset(x[cut:], load[cut:]), batch_size=512)
        """,
        "fit.py": """
            import pandas as pd
            import torch
            import torch.nn.functional as F
            from torch import nn
            from loaders import get_loaders

            def fit(model, dl, opt):
                for x, y in dl:
                    loss = F.l1_loss(model(x), y)  # expect: loss-broadcasts-column-against-vector
                    opt.zero_grad()
                    loss.backward()
                    opt.step()

            if __name__ == "__main__":
                train_dl, val_dl = get_loaders(pd.read_csv("grid.csv"), 20000)
                net = nn.Sequential(nn.Linear(4, 64), nn.GELU(), nn.Linear(64, 1))
                fit(net, train_dl, torch.optim.AdamW(net.parameters()))
        """,
    }, RULE)


# -- clean look-alikes -------------------------------------------------------------------------------


def test_squeezed_or_unsqueezed_to_match():
    src = """
        import pandas as pd
        import torch
        import torch.nn.functional as F
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        df = pd.read_csv("housing.csv")
        X = torch.tensor(df.drop(columns=["price"]).values, dtype=torch.float32)
        y = torch.tensor(df["price"].values, dtype=torch.float32)
        loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
        model = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 1))
        criterion = nn.MSELoss()
        for xb, yb in loader:
            pred = model(xb)
            a = criterion(pred.squeeze(-1), yb)
            b = criterion(pred, yb.unsqueeze(1))
            c = criterion(pred, yb.float().view(-1, 1))
            d = F.l1_loss(pred.view(-1), yb)
            e = F.mse_loss(pred, yb.view_as(pred))
            f = ((pred.squeeze() - yb) ** 2).mean()
            (a + b + c + d + e + f).backward()
    """
    check(src, RULE)


def test_targets_that_really_are_columns():
    src = """
        import numpy as np
        import torch
        from torch import nn
        from torch.utils.data import Dataset, DataLoader, TensorDataset

        class Rows(Dataset):
            def __init__(self, x, y):
                self.x, self.y = x, y

            def __getitem__(self, i):
                return self.x[i], np.array([self.y[i]], dtype=np.float32)

        class AsList(Dataset):
            def __getitem__(self, i):
                return self.x[i], [self.y[i]]

        def train(x, y, frame):
            model = nn.Linear(10, 1)
            crit = nn.MSELoss()
            for xb, yb in DataLoader(Rows(x, y), batch_size=4):
                crit(model(xb), yb).backward()
            for xb, yb in DataLoader(AsList(), batch_size=4):
                crit(model(xb), yb).backward()
            cols = torch.tensor(frame[["target"]].values, dtype=torch.float32)
            for xb, yb in DataLoader(TensorDataset(torch.tensor(frame[["a", "b"]].values), cols), batch_size=4):
                crit(model(xb), yb).backward()
    """
    check(src, RULE)


def test_multi_output_regression_matches():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        frame = pd.read_csv("joints.csv")
        X = torch.tensor(frame[["a", "b", "c", "d"]].values, dtype=torch.float32)
        Y = torch.tensor(frame[["x", "y", "z"]].values, dtype=torch.float32)
        model = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 3))
        for xb, yb in DataLoader(TensorDataset(X, Y), batch_size=32):
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
    """
    check(src, RULE)


def test_unknown_target_shapes_stay_silent():
    src = """
        import torch
        from torch import nn
        import torch.nn.functional as F
        import lightning as L

        class Head(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(32, 1)

            def forward(self, x):
                return self.fc(x)

            def training_step(self, batch, batch_idx):
                x, y = batch
                return F.mse_loss(self(x), y)

        def hf_style(model, loader):
            for batch in loader:
                out = model(batch["inputs"])
                F.mse_loss(out, batch["labels"]).backward()
    """
    check(src, RULE)


def test_pairwise_differences_and_single_samples():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        def pairwise(codes, loader):
            for a, b in loader:
                spread = ((a.unsqueeze(1) - b) ** 2).mean()
                spread.backward()

        def critic_update(critic, state, ret):
            value = critic(state)
            loss = F.mse_loss(value, torch.tensor([ret]))
            loss.backward()

        def per_batch(features, targets):
            head = nn.Linear(8, 1)
            for x, t in DataLoader(TensorDataset(features, targets), batch_size=8):
                bias = F.mse_loss(head(x), torch.zeros(1))
                bias.backward()
    """
    check(src, RULE)


def test_branch_rebinding_is_not_guessed():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        df = pd.read_csv("d.csv")
        data = TensorDataset(torch.tensor(df[["a", "b"]].values), torch.tensor(df["y"].values))
        model = nn.Linear(2, 1)
        for x, y in DataLoader(data, batch_size=16):
            out = model(x)
            if out.dim() == 2:
                out = out.squeeze(-1)
            nn.MSELoss()(out, y).backward()
    """
    check(src, RULE)


def test_targets_reshaped_in_place():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, Dataset, TensorDataset

        df = pd.read_csv("d.csv")
        X = torch.tensor(df[["a", "b"]].values, dtype=torch.float32)
        y = torch.tensor(df["y"].values, dtype=torch.float32)
        y.unsqueeze_(1)
        targets = df["y"].values
        targets.shape = (-1, 1)

        class Rows(Dataset):
            def __init__(self):
                self.y = torch.tensor(df["y"].values)
                self.y.resize_(len(df), 1)

            def __getitem__(self, i):
                return X[i], self.y[i]

        model = nn.Linear(2, 1)
        for xb, yb in DataLoader(TensorDataset(X, y), batch_size=8):
            nn.MSELoss()(model(xb), yb).backward()
        for xb, yb in DataLoader(TensorDataset(X, torch.tensor(targets)), batch_size=8):
            nn.MSELoss()(model(xb), yb).backward()
        for xb, yb in DataLoader(Rows(), batch_size=8):
            nn.MSELoss()(model(xb), yb).backward()
    """
    check(src, RULE)


def test_custom_collate_makes_the_batch_unknown():
    src = """
        import torch
        from torch import nn
        from torch.utils.data import Dataset, DataLoader

        class Scores(Dataset):
            def __getitem__(self, i):
                return self.x[i], float(self.y[i])

        def collate(items):
            xs, ys = zip(*items)
            return torch.stack(xs), torch.tensor(ys).unsqueeze(1)

        model = nn.Linear(5, 1)
        for x, y in DataLoader(Scores(), batch_size=8, collate_fn=collate):
            nn.MSELoss()(model(x), y).backward()
    """
    check(src, RULE)
