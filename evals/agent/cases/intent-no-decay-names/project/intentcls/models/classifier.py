from torch import nn

from .encoder import TextEncoder


class IntentClassifier(nn.Module):
    """Transformer encoder; the [CLS] position (index 0, never padding) feeds a linear head."""

    def __init__(self, vocab_size, n_classes, max_len, dim, depth, n_heads, mlp_mult, dropout, pad_id):
        super().__init__()
        self.encoder = TextEncoder(vocab_size, max_len, dim, depth, n_heads, mlp_mult, dropout, pad_id)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(dim, n_classes))
        self.apply(self._init)

    @staticmethod
    def _init(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids, attention_mask)
        return self.head(hidden[:, 0])
