import torch
from torch import nn
from torch.utils.data import DataLoader

from data import BLANK, CharEncoder, SyntheticLines, make_collate
from model import CRNNHead


def char_error_rate(pred, ref):
    d = list(range(len(ref) + 1))
    for i, p in enumerate(pred, 1):
        prev, d[0] = d[0], i
        for j, r in enumerate(ref, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (p != r))
    return d[len(ref)] / max(len(ref), 1)


@torch.no_grad()
def evaluate(model, loader, encoder):
    model.eval()
    cers, exact = [], 0
    for feats, lengths, _, _, texts in loader:
        best = model(feats).argmax(-1)
        for path, n, ref in zip(best, lengths, texts):
            hyp = encoder.decode_greedy(path[:n].tolist())
            cers.append(char_error_rate(hyp, ref))
            exact += hyp == ref
    return sum(cers) / len(cers), exact / len(cers)


def main():
    torch.manual_seed(0)
    encoder = CharEncoder()
    collate = make_collate(encoder)
    train_loader = DataLoader(SyntheticLines(600, seed=0), batch_size=32, shuffle=True, collate_fn=collate)
    val_loader = DataLoader(SyntheticLines(150, seed=1), batch_size=50, collate_fn=collate)

    model = CRNNHead(16, encoder.num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CTCLoss(blank=BLANK, zero_infinity=True)
    for epoch in range(8):
        model.train()
        total = 0.0
        for feats, lengths, targets, target_lengths, _ in train_loader:
            log_probs = model(feats).transpose(0, 1)
            loss = criterion(log_probs, targets, lengths, target_lengths)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        cer, acc = evaluate(model, val_loader, encoder)
        print(f"epoch {epoch} ctc {total / len(train_loader):.3f} val CER {cer:.3f} exact {acc:.3f}")


if __name__ == "__main__":
    main()
