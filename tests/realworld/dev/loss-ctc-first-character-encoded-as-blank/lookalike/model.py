from torch import nn


class CRNNHead(nn.Module):
    """BiGRU over frame features followed by a per-frame classifier (blank + characters)."""

    def __init__(self, feat_dim, num_classes, hidden=64):
        super().__init__()
        self.rnn = nn.GRU(feat_dim, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, num_classes)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out).log_softmax(-1)
