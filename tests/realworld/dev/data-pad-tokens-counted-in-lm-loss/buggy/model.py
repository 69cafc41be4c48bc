import torch.nn as nn


class TagLM(nn.Module):
    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.out(h)
