import torch
from transformers import BertConfig, BertForMaskedLM
from tabformer_modules import TabFormerConcatEmbeddings


class TabFormerBertLM(torch.nn.Module):
    def __init__(self, vocab_size, ncols, hidden_size=768):
        super().__init__()
        config = BertConfig(vocab_size=vocab_size, hidden_size=hidden_size, num_attention_heads=12)
        self.tab_embeddings = TabFormerConcatEmbeddings(vocab_size, ncols, hidden_size=hidden_size)
        self.bert = BertForMaskedLM(config)

    def forward(self, input_ids, labels=None):
        embeds = self.tab_embeddings(input_ids)
        return self.bert(inputs_embeds=embeds, labels=labels)


def train(model, loader, epochs=3, lr=5e-5, device="cuda"):
    model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for input_ids, labels in loader:
            out = model(input_ids.to(device), labels=labels.to(device))
            opt.zero_grad()
            out.loss.backward()
            opt.step()
        print(f"epoch {epoch} mlm loss {out.loss.item():.4f}")
