import math
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def to_onehot(X, n_class):
    # X: (batch, num_steps) -> list of num_steps tensors of shape (batch, n_class)
    return [F.one_hot(X[:, i], n_class).float() for i in range(X.shape[1])]


def data_iter_random(corpus_indices, batch_size, num_steps, rng):
    num_examples = (len(corpus_indices) - 1) // num_steps
    example_indices = rng.permutation(num_examples)
    for i in range(0, num_examples - batch_size + 1, batch_size):
        starts = example_indices[i:i + batch_size] * num_steps
        X = np.stack([corpus_indices[s:s + num_steps] for s in starts])
        Y = np.stack([corpus_indices[s + 1:s + 1 + num_steps] for s in starts])
        yield torch.from_numpy(X), torch.from_numpy(Y)


class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.hidden_size = rnn_layer.hidden_size
        self.vocab_size = vocab_size
        self.dense = nn.Linear(self.hidden_size, vocab_size)

    def forward(self, inputs, state):
        X = torch.stack(to_onehot(inputs, self.vocab_size))  # (num_steps, batch, vocab)
        Y, state = self.rnn(X, state)
        output = self.dense(Y.view(-1, Y.shape[-1]))
        return output, state


def grad_clipping(params, theta, device):
    params = list(params)  # callers may hand in model.parameters()
    norm = torch.tensor([0.0], device=device)
    for param in params:
        norm += (param.grad.data ** 2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for param in params:
            param.grad.data *= (theta / norm)
    return norm


def train_and_predict_rnn_pytorch(model, device, corpus_indices, num_epochs, num_steps,
                                  lr, clipping_theta, batch_size, seed=0):
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    model.to(device)
    rng = np.random.default_rng(seed)
    for epoch in range(num_epochs):
        l_sum, n, start = 0.0, 0, time.time()
        for X, Y in data_iter_random(corpus_indices, batch_size, num_steps, rng):
            output, _ = model(X.to(device), None)
            y = torch.transpose(Y, 0, 1).contiguous().view(-1).to(device)
            loss = loss_fn(output, y)
            optimizer.zero_grad()
            loss.backward()
            grad_clipping(model.parameters(), clipping_theta, device)
            optimizer.step()
            l_sum += loss.item() * y.shape[0]
            n += y.shape[0]
        try:
            perplexity = math.exp(l_sum / n)
        except OverflowError:
            perplexity = float("inf")
        print(f"epoch {epoch + 1}, perplexity {perplexity:.4g}, time {time.time() - start:.2f} sec")
