import torch
import torch.nn as nn
from transformers import BertModel


class MMFTransformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        bert = BertModel.from_pretrained(config.bert_model_name)
        self.embeddings = bert.embeddings
        self.encoder = bert.encoder
        self.pooler = bert.pooler
        self.image_proj = nn.Linear(config.visual_dim, bert.config.hidden_size)
        self.classifier = nn.Sequential(nn.Dropout(0.1), nn.Linear(bert.config.hidden_size, config.num_labels))

    def forward(self, input_ids, attention_mask, image_feats):
        text = self.embeddings(input_ids=input_ids)
        x = torch.cat([text, self.image_proj(image_feats)], dim=1)
        mask = torch.cat([attention_mask, attention_mask.new_ones(image_feats.shape[:2])], dim=1)
        ext = (1.0 - mask[:, None, None, :].float()) * -10000.0
        hidden = self.encoder(x, attention_mask=ext).last_hidden_state
        return self.classifier(self.pooler(hidden))

    def get_optimizer_parameters(self, config):
        lr = config.optimizer.lr
        finetune_lr_multiplier = config.finetune_lr_multiplier
        head_names = ("image_proj", "classifier")
        backbone = [p for n, p in self.named_parameters() if not n.startswith(head_names)]
        head = [p for n, p in self.named_parameters() if n.startswith(head_names)]
        return [
            {"params": backbone, "lr": lr * finetune_lr_multiplier},
            {"params": head, "lr": lr},
        ]
