import torch.nn as nn
from transformers import BertModel


class BertNLI(nn.Module):
    def __init__(self, name="bert-base-uncased", num_labels=3):
        super().__init__()
        self.bert = BertModel.from_pretrained(name)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(self.bert.config.hidden_size, num_labels)

    def forward(self, input_ids, token_type_ids, attention_mask):
        out = self.bert(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask)
        return self.classifier(self.dropout(out.pooler_output))
