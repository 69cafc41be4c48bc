import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import LABELS, CommandCorpus, collate
from evaluate import evaluate
from model import TinyAcousticModel

torch.manual_seed(0)
torch.set_num_threads(1)

train_set = CommandCorpus(n_utts=256, seed=1)
test_set = CommandCorpus(n_utts=160, seed=2)
train_loader = DataLoader(train_set, batch_size=16, shuffle=True, collate_fn=collate)
test_loader = DataLoader(test_set, batch_size=32, shuffle=False, collate_fn=collate)

model = TinyAcousticModel(n_feats=len(LABELS), n_classes=len(LABELS))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)

for epoch in range(6):
    running = 0.0
    for feats, lengths, targets, target_lengths, _ in train_loader:
        log_probs = F.log_softmax(model(feats), dim=-1).transpose(0, 1)
        loss = F.ctc_loss(log_probs, targets, lengths, target_lengths,
                          blank=0, zero_infinity=True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
    wer, cer = evaluate(model, test_loader)
    print(f"epoch {epoch}  ctc {running / len(train_loader):.3f}  "
          f"test WER {wer:.2f}%  CER {cer:.2f}%")
