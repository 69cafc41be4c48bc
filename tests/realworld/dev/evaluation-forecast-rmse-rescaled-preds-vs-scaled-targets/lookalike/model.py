from torch import nn


class StackedLSTM(nn.Module):
    def __init__(self, hidden=50, layers=3):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        seq, _ = self.lstm(x)
        return self.out(seq[:, -1])
