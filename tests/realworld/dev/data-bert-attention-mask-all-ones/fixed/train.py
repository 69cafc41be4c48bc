import torch
import torch.nn as nn
from transformers import BertTokenizer

from bert_nli import BertNLI
from utils import build_batch


def train(pairs, labels, epochs=2, bs=16, lr=2e-5, device="cuda"):
    tok = BertTokenizer.from_pretrained("bert-base-uncased")
    model = BertNLI().to(device)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for i in range(0, len(pairs), bs):
            prem, hyp = zip(*pairs[i:i + bs])
            ids, segs, mask = build_batch(tok, prem, hyp, device=device)
            logits = model(ids, segs, mask)
            loss = loss_fn(logits, torch.tensor(labels[i:i + bs], device=device))
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model
