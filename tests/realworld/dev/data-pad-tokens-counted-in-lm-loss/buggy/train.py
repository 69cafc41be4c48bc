import torch
import torch.nn.functional as F

from model import TagLM

PAD, VOCAB, MAXLEN = 0, 12, 40


def make_batch(gen, batch_size=32):
    """Next-token data: each sequence steps mod 11 from a random start with a random stride; lengths vary, right padded."""
    seqs = torch.full((batch_size, MAXLEN + 1), PAD, dtype=torch.long)
    for b in range(batch_size):
        n = int(torch.randint(3, 10, (1,), generator=gen))
        start = int(torch.randint(0, 11, (1,), generator=gen))
        stride = int(torch.randint(1, 5, (1,), generator=gen))
        seqs[b, :n] = (start + stride * torch.arange(n)) % 11 + 1
    return seqs[:, :-1], seqs[:, 1:]


def lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


def real_token_accuracy(logits, targets):
    keep = targets != PAD
    return (logits.argmax(-1)[keep] == targets[keep]).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    lm = TagLM(VOCAB)
    opt = torch.optim.Adam(lm.parameters(), lr=3e-3)
    for step in range(201):
        inputs, targets = make_batch(gen)
        logits = lm(inputs)
        loss = lm_loss(logits, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0:
            print(f"step {step} loss {loss.item():.4f} real_token_acc {real_token_accuracy(logits, targets):.3f}")
