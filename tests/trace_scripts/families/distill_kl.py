"""Distillation with KLDivLoss: the student enters as probabilities (argv 'probs', the bug) or log-probabilities."""
import sys

import torch
import torch.nn.functional as F
from torch import nn

student_input = sys.argv[1] if len(sys.argv) > 1 else "probs"
torch.manual_seed(0)
teacher = nn.Linear(8, 5)
student = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 5))
opt = torch.optim.SGD(student.parameters(), lr=0.1)
kl = nn.KLDivLoss(reduction="batchmean")
for _ in range(60):
    x = torch.randn(32, 8)
    with torch.no_grad():
        soft = F.softmax(teacher(x) / 2.0, dim=-1)
    logits = student(x) / 2.0
    inp = F.softmax(logits, dim=-1) if student_input == "probs" else F.log_softmax(logits, dim=-1)
    loss = kl(inp, soft)
    opt.zero_grad()
    loss.backward()
    opt.step()
