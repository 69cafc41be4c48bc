import torch
from torch import nn


class TabFormerConcatEmbeddings(nn.Module):
    """Embeds each field of each row and encodes the rows of a transaction window."""

    def __init__(self, vocab_size, ncols, field_hidden_size=64, hidden_size=768, nhead=8, nlayers=1):
        super().__init__()
        self.ncols = ncols
        self.word_embeddings = nn.Embedding(vocab_size, field_hidden_size)
        encoder_layer = nn.TransformerEncoderLayer(d_model=field_hidden_size, nhead=nhead, dim_feedforward=field_hidden_size,
                                                   batch_first=True)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layer, num_layers=nlayers)
        self.lin_proj = nn.Linear(field_hidden_size * ncols, hidden_size)

    def forward(self, input_ids):
        embeds_shape = list(input_ids.size())
        input_ids = input_ids.view(-1, embeds_shape[-1])
        inputs_embeds = self.word_embeddings(input_ids)
        inputs_embeds = self.transformer_encoder(inputs_embeds)
        embeds_shape[-1] = -1
        inputs_embeds = inputs_embeds.contiguous().view(embeds_shape)
        return self.lin_proj(inputs_embeds)
