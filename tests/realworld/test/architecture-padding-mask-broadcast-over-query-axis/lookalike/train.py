import numpy as np
import torch
import torch.nn.functional as F

from model import SequenceClassifier

PAD = 0
VOCAB = 12
MAX_LEN = 16


def make_batch(rng, n, pad_to=MAX_LEN):
    """Variable-length sequences of tokens 1..VOCAB-1; label: more 7s than 3s."""
    lengths = rng.integers(3, MAX_LEN + 1, size=n)
    tokens = rng.integers(1, VOCAB, size=(n, pad_to))
    real = np.arange(pad_to)[None, :] < lengths[:, None]
    src = np.where(real, tokens, PAD)
    labels = ((src == 7).sum(1) > (src == 3).sum(1)).astype(np.int64)
    return torch.from_numpy(src), torch.from_numpy(labels)


@torch.no_grad()
def evaluate(model, src, labels):
    model.eval()
    acc = (model(src).argmax(-1) == labels).float().mean().item()
    # the same sequences with extra trailing padding, as a longer batch mate would cause
    longer = F.pad(src, (0, 3 * MAX_LEN), value=PAD)
    acc_long = (model(longer).argmax(-1) == labels).float().mean().item()
    model.train()
    return acc, acc_long


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    val_src, val_labels = make_batch(np.random.default_rng(123), 512)
    model = SequenceClassifier(VOCAB, num_classes=2, pad_idx=PAD, max_len=4 * MAX_LEN)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

    for step in range(1, 201):
        src, labels = make_batch(rng, 32)
        loss = F.cross_entropy(model(src), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            acc, acc_long = evaluate(model, val_src, val_labels)
            print(f"step {step} loss {loss.item():.4f} val_acc {acc:.3f} val_acc_padded_to_{4 * MAX_LEN} {acc_long:.3f}")


if __name__ == "__main__":
    main()
