import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertModel


class UnsupSimCSE(nn.Module):
    def __init__(self, model_name, temperature=0.05):
        super().__init__()
        self.encoder = BertModel.from_pretrained(model_name)
        self.mlp = nn.Sequential(nn.Linear(768, 768), nn.Tanh())
        self.temperature = temperature

    def encode(self, input_ids, attention_mask):
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
        return self.mlp(out.last_hidden_state[:, 0])

    def forward(self, input_ids, attention_mask):
        z1 = self.encode(input_ids, attention_mask)
        z2 = self.encode(input_ids, attention_mask)
        sim = F.cosine_similarity(z1.unsqueeze(1), z2.unsqueeze(0), dim=-1) / self.temperature
        labels = torch.arange(sim.size(0), device=sim.device)
        return F.cross_entropy(sim, labels)
