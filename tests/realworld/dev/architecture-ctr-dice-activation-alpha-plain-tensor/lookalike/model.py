import numpy as np
import torch
import torch.nn as nn

from layers import DNN, PredictionLayer


class DeepCTR(nn.Module):
    """Sparse-field embeddings (one shared table) + dense features -> DNN -> click logit."""

    def __init__(self, field_vocab_sizes, num_dense, embedding_dim=8,
                 dnn_hidden_units=(64, 32), dnn_activation="dice", init_std=1e-2):
        super().__init__()
        self.embedding = nn.Embedding(int(sum(field_vocab_sizes)), embedding_dim)
        nn.init.normal_(self.embedding.weight, mean=0, std=init_std)
        self.offsets = torch.tensor((0, *np.cumsum(field_vocab_sizes)[:-1]), dtype=torch.long)
        self.num_fields = len(field_vocab_sizes)
        dnn_input_dim = self.num_fields * embedding_dim + num_dense
        self.dnn = DNN(dnn_input_dim, dnn_hidden_units, activation=dnn_activation,
                       init_std=init_std)
        self.dnn_linear = nn.Linear(dnn_hidden_units[-1], 1, bias=False)
        self.out = PredictionLayer()

    def forward(self, sparse, dense):
        idx = sparse + self.offsets.unsqueeze(0)
        embs = self.embedding(idx).flatten(1)
        dnn_input = torch.cat([embs, dense], dim=1)
        logit = self.dnn_linear(self.dnn(dnn_input))
        return self.out(logit).squeeze(1)
