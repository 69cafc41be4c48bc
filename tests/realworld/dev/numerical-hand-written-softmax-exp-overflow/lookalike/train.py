import torch

from model import SpanHead, answer_loss


def train(encoder, gcn, head, loader, epochs=20, lr=1e-4):
    params = list(gcn.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    encoder.eval()
    for epoch in range(epochs):
        for batch in loader:
            with torch.no_grad():
                tokens = encoder(batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
            nodes = gcn(tokens, batch["node_index"], batch["adjacency"])
            scores, mask = head(nodes, batch["candidate_mask"])
            loss = answer_loss(scores, mask, batch["answer"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())
