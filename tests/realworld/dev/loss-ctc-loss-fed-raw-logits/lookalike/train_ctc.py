"""Frame-level phoneme recogniser trained with CTC on synthetic 'acoustic' frames."""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

N_PHONES = 6          # real symbols 1..6, 0 is the CTC blank
FEAT = 12
T_FRAMES = 48


def make_utterances(n, seed):
    rng = np.random.default_rng(seed)
    protos = np.random.default_rng(7).normal(0, 1.0, size=(N_PHONES + 1, FEAT))
    feats = np.zeros((n, T_FRAMES, FEAT), dtype=np.float32)
    targets, target_lengths, input_lengths = [], [], []
    for i in range(n):
        length = rng.integers(3, 7)
        phones = rng.integers(1, N_PHONES + 1, size=length)
        t = int(rng.integers(1, 4))
        for p in phones:
            dur = int(rng.integers(3, 6))
            feats[i, t:t + dur] = protos[p]
            t += dur + int(rng.integers(0, 3))
        feats[i, :t] += rng.normal(0, 0.4, size=(t, FEAT))
        input_lengths.append(min(t + 1, T_FRAMES))
        targets.append(phones)
        target_lengths.append(length)
    flat = torch.tensor(np.concatenate(targets), dtype=torch.long)
    return (torch.from_numpy(feats), flat, torch.tensor(input_lengths), torch.tensor(target_lengths), targets)


class Recognizer(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.rnn = nn.GRU(FEAT, hidden, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(2 * hidden, N_PHONES + 1)

    def forward(self, x):
        h, _ = self.rnn(x)
        return F.log_softmax(self.classifier(h), dim=-1)  # (batch, time, classes)


def greedy_decode(scores, lengths):
    best = scores.argmax(-1)
    out = []
    for seq, n in zip(best, lengths):
        seq = torch.unique_consecutive(seq[:n]).tolist()
        out.append([s for s in seq if s != 0])
    return out


def main():
    torch.manual_seed(0)
    x, y, x_len, y_len, _ = make_utterances(1200, seed=0)
    xv, _, xv_len, _, yv_list = make_utterances(200, seed=1)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), y_len.cumsum(0)])
    model = Recognizer()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    for step in range(1, 201):
        idx = torch.randint(0, len(x), (32,))
        tgt = torch.cat([y[offsets[i]:offsets[i + 1]] for i in idx])
        log_probs = model(x[idx])
        loss = F.ctc_loss(log_probs.transpose(0, 1), tgt, x_len[idx], y_len[idx], blank=0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 40 == 0:
            with torch.no_grad():
                hyp = greedy_decode(model(xv), xv_len)
            exact = np.mean([h == list(r) for h, r in zip(hyp, yv_list)])
            print(f"step {step:3d} ctc_loss {loss.item():9.4f} val_exact_match {exact:.3f}")


if __name__ == "__main__":
    main()
