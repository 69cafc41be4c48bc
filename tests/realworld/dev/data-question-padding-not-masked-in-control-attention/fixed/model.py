import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class ControlUnit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.position_aware = nn.Linear(dim * 2, dim)
        self.control_question = nn.Linear(dim * 2, dim)
        self.attn = nn.Linear(dim, 1)

    def forward(self, context, question, control, mask=None):
        cq = self.control_question(torch.cat([control, self.position_aware(question)], 1))
        logits = self.attn(cq.unsqueeze(1) * context).squeeze(-1)
        if mask is not None:
            logits = logits.masked_fill(~mask, float("-inf"))
        attn = F.softmax(logits, dim=1)
        return (attn.unsqueeze(-1) * context).sum(1)


class MACNetwork(nn.Module):
    def __init__(self, n_vocab, dim=512, max_step=12, classes=28):
        super().__init__()
        self.embed = nn.Embedding(n_vocab, 300, padding_idx=0)
        self.lstm = nn.LSTM(300, dim, batch_first=True, bidirectional=True)
        self.lstm_proj = nn.Linear(dim * 2, dim)
        self.control = ControlUnit(dim)
        self.init_control = nn.Parameter(torch.zeros(1, dim))
        self.img_proj = nn.Conv2d(1024, dim, 1)
        self.classifier = nn.Sequential(nn.Linear(dim * 3, dim), nn.ELU(), nn.Linear(dim, classes))
        self.max_step = max_step

    def forward(self, image, question, question_len):
        b = question.size(0)
        embed = self.embed(question)
        packed = pack_padded_sequence(embed, question_len.cpu(), batch_first=True, enforce_sorted=False)
        out, (h, _) = self.lstm(packed)
        lstm_out, _ = pad_packed_sequence(out, batch_first=True, total_length=question.size(1))
        lstm_out = self.lstm_proj(lstm_out)
        q = torch.cat([h[0], h[1]], -1)
        know = self.img_proj(image).flatten(2).transpose(1, 2)
        control = self.init_control.expand(b, -1)
        mask = torch.arange(question.size(1), device=question.device)[None] < question_len.to(question.device)[:, None]
        for _ in range(self.max_step):
            control = self.control(lstm_out, q, control, mask)
        read = (F.softmax((know @ control.unsqueeze(-1)).squeeze(-1), 1).unsqueeze(-1) * know).sum(1)
        return self.classifier(torch.cat([read, q], 1))
