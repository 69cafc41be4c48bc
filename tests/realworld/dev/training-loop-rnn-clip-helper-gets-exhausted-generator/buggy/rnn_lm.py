import numpy as np
import torch
from torch import nn

from utils import RNNModel, train_and_predict_rnn_pytorch

VOCAB_SIZE = 12


def make_corpus(length, seed=0):
    """A toy 'language': every symbol can be followed by one of two symbols."""
    rng = np.random.default_rng(seed)
    successors = np.stack([rng.choice(VOCAB_SIZE, size=2, replace=False) for _ in range(VOCAB_SIZE)])
    idx = np.empty(length, dtype=np.int64)
    idx[0] = 0
    for t in range(1, length):
        idx[t] = successors[idx[t - 1], rng.integers(0, 2)]
    return idx


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    corpus_indices = make_corpus(30000)
    num_hiddens = 64
    rnn_layer = nn.RNN(input_size=VOCAB_SIZE, hidden_size=num_hiddens)
    model = RNNModel(rnn_layer, VOCAB_SIZE)

    num_epochs, batch_size, num_steps = 6, 32, 20
    lr, clipping_theta = 1e2, 1e-2
    train_and_predict_rnn_pytorch(model, device, corpus_indices, num_epochs, num_steps,
                                  lr, clipping_theta, batch_size)


if __name__ == "__main__":
    main()
