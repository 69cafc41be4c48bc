import torch
from torch.utils.data import DataLoader, TensorDataset


def synthetic_corpus(n, max_len, vocab_size, n_classes, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, n_classes, (n,), generator=g)
    tokens = torch.randint(4, vocab_size, (n, max_len), generator=g)
    tokens[:, 0] = 1
    tokens[:, 1] = labels + 2
    lengths = torch.randint(max_len // 2, max_len + 1, (n,), generator=g)
    for i, length in enumerate(lengths):
        tokens[i, length:] = 0
    return tokens, labels


def make_loaders(config):
    x, y = synthetic_corpus(2000, config.max_sen_len, config.vocab_size, config.output_size)
    train = TensorDataset(x[:1600], y[:1600])
    val = TensorDataset(x[1600:], y[1600:])
    return (
        DataLoader(train, batch_size=config.batch_size, shuffle=True),
        DataLoader(val, batch_size=config.batch_size),
    )


def evaluate_model(model, iterator):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in iterator:
            y_pred = model(x, pad_mask=(x == 0))
            correct += (y_pred.argmax(dim=1) == y).sum().item()
            total += y.numel()
    return correct / total
