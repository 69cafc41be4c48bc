import torch

import dataplumbing as dp
from model import NakedAttentionClassifier

torch.manual_seed(0)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

loader_train, loader_val = dp.get_loaders(batch_size=32)
model = NakedAttentionClassifier(num_tokens=dp.VOCAB_SIZE, num_features=64, num_heads=4, num_outputs=2).to(device)
probability = torch.nn.Softmax(dim=1)
loss_fn = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(64):
    e_train, a_train = 0.0, 0.0
    for tokens, labels in loader_train:
        tokens, labels = tokens.to(device), labels.to(device)
        logits = model(tokens)
        e_batch = loss_fn(logits, labels)
        a_batch = (probability(logits).argmax(1) == labels).float().mean()
        optimizer.zero_grad()
        e_batch.backward()
        optimizer.step()
        e_train += e_batch.item() / len(loader_train)
        a_train += a_batch.item() / len(loader_train)

    e_val, a_val = 0.0, 0.0
    with torch.no_grad():
        for tokens, labels in loader_val:
            tokens, labels = tokens.to(device), labels.to(device)
            logits = model(tokens)
            e_val += loss_fn(logits, labels) / len(loader_val)
            a_val += (probability(logits).argmax(1) == labels).float().mean() / len(loader_val)

    print("Epoch:", epoch, "Training Loss:", float(e_train), "Training Accuracy:", float(a_train),
          "Validation Loss:", float(e_val), "Validation Accuracy:", float(a_val))
