"""The ``channel-layer-on-sequence-axis`` rule (``mlsleuth/scan/rules/architecture/channel_layer_on_sequence_axis.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"channel-layer-on-sequence-axis"}


def test_batchnorm_on_batch_first_lstm_output():
    src = """
        import torch
        from torch import nn

        class Tagger(nn.Module):
            def __init__(self, n_feat, hidden=128):
                super().__init__()
                self.lstm = nn.LSTM(n_feat, 128, batch_first=True)
                self.bn = nn.BatchNorm1d(128)
                self.out = nn.Linear(128, 5)

            def forward(self, x):
                seq, _ = self.lstm(x)
                seq = self.bn(seq)  # expect: channel-layer-on-sequence-axis
                return self.out(seq)
    """
    check(src, RULE)
    (found,) = findings(src, "channel-layer-on-sequence-axis")
    assert "(N, ?, 128)" in found.message


def test_dropout1d_on_bidirectional_gru_speech_features():
    src = """
        import torch.nn as nn

        class SpeechEncoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(input_size=80, hidden_size=256, num_layers=3, batch_first=True, bidirectional=True)
                self.drop = nn.Dropout1d(0.2)
                self.ctc = nn.Linear(512, 30)

            def forward(self, mels, lengths=None):
                states, _ = self.rnn(mels)
                return self.ctc(self.drop(states)).log_softmax(-1)  # expect: channel-layer-on-sequence-axis
    """
    check(src, RULE)


def test_instance_norm_after_a_projection_of_the_sequence():
    src = """
        import lightning as L
        import torch
        from torch import nn

        class ActivityNet(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(6, 64, 2, batch_first=True)
                self.proj = nn.Linear(64, 32)
                self.norm = nn.InstanceNorm1d(32)
                self.head = nn.Linear(32, 12)

            def forward(self, imu):
                h, (hn, cn) = self.rnn(imu)
                z = torch.relu(self.proj(h))
                z = self.norm(z)  # expect: channel-layer-on-sequence-axis
                return self.head(z.mean(dim=1))
    """
    check(src, RULE)


def test_loader_windows_of_sensor_channels():
    src = """
        import pandas as pd
        import torch
        from torch import nn
        from torch.utils.data import Dataset, DataLoader

        class Windows(Dataset):
            def __init__(self, path, width):
                frame = pd.read_csv(path)
                self.signal = torch.tensor(frame[["ax", "ay", "az"]].values, dtype=torch.float32)
                self.width = width

            def __len__(self):
                return len(self.signal) - self.width

            def __getitem__(self, i):
                return self.signal[i:i + self.width], 0

        norm = nn.BatchNorm1d(3)
        conv = nn.Conv1d(3, 16, 5)
        for window, _ in DataLoader(Windows("imu.csv", 128), batch_size=32, shuffle=True):
            window = norm(window)  # expect: channel-layer-on-sequence-axis
            feats = conv(norm(window.transpose(1, 2)))
    """
    check(src, RULE)


def test_input_of_a_batch_first_rnn():
    src = """
        from torch import nn

        class Gesture(nn.Module):
            def __init__(self, steps=40, joints=21 * 3):
                super().__init__()
                self.norm = nn.BatchNorm1d(steps)
                self.gru = nn.GRU(joints, 96, batch_first=True)
                self.drop = nn.Dropout1d(0.1)
                self.lstm = nn.LSTM(96, 96, batch_first=True)
                self.cls = nn.Linear(96, 10)

            def forward(self, poses):
                x = self.norm(poses)  # expect: channel-layer-on-sequence-axis
                h, _ = self.gru(x)
                h, _ = self.lstm(self.drop(h))  # expect: channel-layer-on-sequence-axis
                return self.cls(h[:, -1])
    """
    check(src, RULE)


def test_rnn_inputs_normalised_on_the_feature_axis():
    src = """
        from torch import nn

        class Fine(nn.Module):
            def __init__(self, joints=63):
                super().__init__()
                self.norm = nn.BatchNorm1d(joints)
                self.gru = nn.GRU(joints, 96, batch_first=True)
                self.seq_first = nn.LSTM(joints, 96)

            def forward(self, poses):
                x = self.norm(poses.transpose(1, 2))
                h, _ = self.gru(x.transpose(1, 2))
                h2, _ = self.gru(self.norm(poses.permute(0, 2, 1)).permute(0, 2, 1))
                flat = self.norm(poses.flatten(0, 1))
                h3, _ = self.seq_first(self.norm(poses))
                return h, h2, flat, h3
    """
    check(src, RULE)


def test_transposed_pooled_and_convolutional_inputs_are_fine():
    src = """
        import torch
        from torch import nn

        class Fine(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(16, 64, batch_first=True)
                self.seq_first = nn.GRU(16, 64)
                self.conv = nn.Conv1d(16, 64, 3)
                self.bn = nn.BatchNorm1d(64)
                self.bn_time = nn.BatchNorm1d(50)
                self.drop = nn.Dropout1d(0.1)
                self.ln = nn.LayerNorm(64)

            def forward(self, x):
                out, _ = self.lstm(x)
                a = self.bn(out.transpose(1, 2)).transpose(1, 2)
                b = self.drop(out.permute(0, 2, 1))
                c = self.bn(out[:, -1])
                d = self.bn(out.mean(dim=1))
                e = self.bn(self.conv(x))
                f = self.ln(out)
                g = self.bn_time(out)
                s, _ = self.seq_first(x)
                h = self.bn(s)
                return a, b, c, d, e, f, g, h
    """
    check(src, RULE)


def test_features_after_a_linear_and_unknown_inputs():
    src = """
        from torch import nn

        class Mlp(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(20, 64)
                self.bn = nn.BatchNorm1d(64)
                self.drop = nn.Dropout1d(0.5)

            def forward(self, x):
                return self.drop(self.bn(self.fc(x)))

            def encode(self, seq):
                return self.bn(seq)
    """
    check(src, RULE)
