"""CTC losses fed per-frame scores (argv[1]); buggy and clean variants.

Buggy: 'raw' (a BiGRU recogniser's linear-layer scores go straight into F.ctc_loss), 'module' (the same through
nn.CTCLoss, the model built as an nn.Sequential).
Clean: 'log-softmax' (F.log_softmax over the class axis before F.ctc_loss), 'in-model' (the model ends in
nn.LogSoftmax(dim=-1) and feeds nn.CTCLoss), 'raw-eval' (log_softmax for the loss; raw scores only reach a greedy
decoder under no_grad).
Targets: 'blank-label' (log-probabilities, but the labels are numbered from 0, the blank's id, in padded targets),
'blank-label-flat' (the same with concatenated 1-D targets); every other variant numbers them from 1 and pads the
padded targets with 0 (the blank id) beyond target_lengths, which is allowed.
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "raw"
torch.manual_seed(0)
FRAMES, BATCH, FEATS, PHONES = 24, 6, 10, 7  # class 0 is the CTC blank


class Recogniser(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(FEATS, 16, bidirectional=True)
        self.out = nn.Linear(32, PHONES)
        self.norm = nn.LogSoftmax(dim=-1) if variant == "in-model" else nn.Identity()

    def forward(self, frames):  # (T, N, F) -> (T, N, C)
        h, _ = self.rnn(frames)
        return self.norm(self.out(h))


model = Recogniser()
criterion = nn.CTCLoss(blank=0)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(30):
    frames = torch.randn(FRAMES, BATCH, FEATS)
    low = 0 if variant.startswith("blank-label") else 1
    tgt_lens = torch.randint(3, 6, (BATCH,))
    targets = torch.randint(low, PHONES, (BATCH, 5)) * (torch.arange(5)[None, :] < tgt_lens[:, None])  # padded with 0
    if variant == "blank-label-flat":
        targets = torch.cat([row[:n] for row, n in zip(targets, tgt_lens)])
    in_lens = torch.full((BATCH,), FRAMES, dtype=torch.long)
    scores = model(frames)
    if variant == "raw":
        loss = F.ctc_loss(scores, targets, in_lens, tgt_lens)
    elif variant in ("module", "in-model"):
        loss = criterion(scores, targets, in_lens, tgt_lens)
    else:
        loss = F.ctc_loss(F.log_softmax(scores, dim=-1), targets, in_lens, tgt_lens)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if variant == "raw-eval" and step % 10 == 9:
        with torch.no_grad():
            greedy = model(frames).argmax(-1)
            print(f"step {step} loss {loss.item():.3f} blanks {float((greedy == 0).float().mean()):.2f}")
