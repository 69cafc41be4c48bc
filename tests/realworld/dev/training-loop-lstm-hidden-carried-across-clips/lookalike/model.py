import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTM(nn.Module):
    def __init__(self, input_len=1024, hidden_len=1024, target_size=101, is_softmax=True):
        super().__init__()
        self.hidden_len = hidden_len
        self.is_softmax = is_softmax
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.hidden2class = nn.Linear(hidden_len, target_size)
        self.hidden = None

    def init_hidden(self, batch_size=1):
        return (torch.zeros(1, batch_size, self.hidden_len), torch.zeros(1, batch_size, self.hidden_len))

    def forward(self, x):
        if self.hidden is None or self.hidden[0].size(1) != x.size(0):
            self.hidden = self.init_hidden(x.size(0))
        lstm_out, hidden = self.lstm(x, self.hidden)
        self.hidden = tuple(h.detach() for h in hidden)
        scores = self.hidden2class(lstm_out[:, -1, :])
        if self.is_softmax:
            scores = F.log_softmax(scores, dim=-1)
        return scores
