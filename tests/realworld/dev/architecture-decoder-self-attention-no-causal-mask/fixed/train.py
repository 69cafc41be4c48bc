import torch
import torch.nn.functional as F
from model import TinyDecoder

VOCAB, LEN = 16, 12


def sample(n, gen):
    start = torch.randint(0, VOCAB, (n, 1), generator=gen)
    stride = torch.randint(1, 4, (n, 1), generator=gen)
    return (start + stride * torch.arange(LEN)) % VOCAB


def lm_loss(net, seq):
    logits = net(seq[:, :-1])
    return F.cross_entropy(logits.reshape(-1, VOCAB), seq[:, 1:].reshape(-1))


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    net = TinyDecoder(VOCAB)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3)
    for step in range(300):
        loss = lm_loss(net, sample(64, gen))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == 299:
            print(f"step {step} train loss {loss.item():.4f}")
    net.eval()
    test = sample(256, gen)
    out = net.generate(test[:, :3], LEN - 3)
    acc = (out[:, 3:] == test[:, 3:]).float().mean().item()
    print(f"greedy continuation accuracy {acc:.3f}")
