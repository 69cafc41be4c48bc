import torch
import torch.nn as nn

from layers import DNN, PredictionLayer


class DeepCTR(nn.Module):
    """Sparse-field embeddings + dense features -> DNN -> click logit."""

    def __init__(self, field_vocab_sizes, num_dense, embedding_dim=8,
                 dnn_hidden_units=(64, 32), dnn_activation="dice", init_std=1e-2):
        super().__init__()
        self.embedding_dict = nn.ModuleDict({
            f"C{i}": nn.Embedding(v, embedding_dim) for i, v in enumerate(field_vocab_sizes)
        })
        for emb in self.embedding_dict.values():
            nn.init.normal_(emb.weight, mean=0, std=init_std)
        dnn_input_dim = len(field_vocab_sizes) * embedding_dim + num_dense
        self.dnn = DNN(dnn_input_dim, dnn_hidden_units, activation=dnn_activation,
                       init_std=init_std)
        self.dnn_linear = nn.Linear(dnn_hidden_units[-1], 1, bias=False)
        self.out = PredictionLayer()

    def forward(self, sparse, dense):
        embs = [self.embedding_dict[f"C{i}"](sparse[:, i]) for i in range(sparse.shape[1])]
        dnn_input = torch.cat(embs + [dense], dim=1)
        logit = self.dnn_linear(self.dnn(dnn_input))
        return self.out(logit).squeeze(1)
