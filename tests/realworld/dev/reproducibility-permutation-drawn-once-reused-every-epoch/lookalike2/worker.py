import torch
import torch.nn.functional as F


def train(model, tokens, epochs=4, batch_size=16, seed=0, lr=5e-5):
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(len(tokens), generator=g)
        for start in range(0, len(order), batch_size):
            batch = tokens[order[start:start + batch_size]]
            loss = F.cross_entropy(model(batch[:, :-1]).flatten(0, 1), batch[:, 1:].flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model
