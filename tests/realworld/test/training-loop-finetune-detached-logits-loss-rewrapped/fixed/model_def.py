"""TorchMoji-style sentence classifier: embedding, two BiLSTMs, attention, softmax head."""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, attention_size):
        super().__init__()
        self.attention_vector = nn.Parameter(torch.empty(attention_size))
        nn.init.normal_(self.attention_vector, std=0.05)

    def forward(self, inputs, input_lengths):
        logits = inputs.matmul(self.attention_vector)
        max_len = inputs.size(1)
        idxes = torch.arange(max_len, device=inputs.device).unsqueeze(0)
        mask = (idxes < input_lengths.unsqueeze(1)).float()
        unnorm = torch.exp(logits - logits.max()) * mask
        attentions = unnorm / unnorm.sum(dim=1, keepdim=True)
        representations = (inputs * attentions.unsqueeze(-1)).sum(dim=1)
        return representations, attentions


class TorchMoji(nn.Module):
    def __init__(self, nb_classes, nb_tokens, embed_dim=64, hidden=64,
                 embed_dropout_rate=0.1, final_dropout_rate=0.2, return_tensor=True):
        super().__init__()
        self.return_tensor = return_tensor
        self.embed = nn.Embedding(nb_tokens, embed_dim, padding_idx=0)
        self.embed_dropout = nn.Dropout(embed_dropout_rate)
        self.lstm_0 = nn.LSTM(embed_dim, hidden, batch_first=True, bidirectional=True)
        self.lstm_1 = nn.LSTM(hidden * 2, hidden, batch_first=True, bidirectional=True)
        att_size = embed_dim + hidden * 4
        self.attention_layer = Attention(att_size)
        self.final_dropout = nn.Dropout(final_dropout_rate)
        self.output_layer = nn.Linear(att_size, nb_classes)

    def forward(self, input_seqs):
        input_lengths = (input_seqs != 0).sum(dim=1).clamp(min=1)
        x = self.embed_dropout(torch.tanh(self.embed(input_seqs)))
        lstm_0_output, _ = self.lstm_0(x)
        lstm_1_output, _ = self.lstm_1(lstm_0_output)
        x = torch.cat((lstm_1_output, lstm_0_output, x), dim=2)
        x, _ = self.attention_layer(x, input_lengths)
        outputs = self.output_layer(self.final_dropout(x))
        return outputs


def torchmoji_transfer(nb_classes, nb_tokens, weight_path=None):
    model = TorchMoji(nb_classes=nb_classes, nb_tokens=nb_tokens)
    if weight_path is not None:
        state = torch.load(weight_path, map_location="cpu")
        state = {k: v for k, v in state.items() if not k.startswith("output_layer")}
        model.load_state_dict(state, strict=False)
    return model
