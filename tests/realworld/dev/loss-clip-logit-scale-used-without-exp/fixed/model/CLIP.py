import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from transformers import PretrainedConfig, PreTrainedModel


class M3DCLIPConfig(PretrainedConfig):
    model_type = "m3d_clip"

    def __init__(self, in_channels=1, img_size=(32, 256, 256), patch_size=(4, 16, 16), hidden_size=768,
                 vocab_size=30522, max_text_len=128, num_layers=6, num_heads=12, **kwargs):
        self.in_channels = in_channels
        self.img_size = img_size
        self.patch_size = patch_size
        self.hidden_size = hidden_size
        self.vocab_size = vocab_size
        self.max_text_len = max_text_len
        self.num_layers = num_layers
        self.num_heads = num_heads
        super().__init__(**kwargs)


class ViT3DEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.patch = nn.Conv3d(config.in_channels, config.hidden_size, config.patch_size, stride=config.patch_size)
        n_patches = int(np.prod([i // p for i, p in zip(config.img_size, config.patch_size)]))
        self.cls = nn.Parameter(torch.zeros(1, 1, config.hidden_size))
        self.pos = nn.Parameter(torch.zeros(1, n_patches + 1, config.hidden_size))
        layer = nn.TransformerEncoderLayer(config.hidden_size, config.num_heads, 4 * config.hidden_size,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, config.num_layers)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], dim=1) + self.pos
        return self.blocks(x)[:, 0]


class TextEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.tok = nn.Embedding(config.vocab_size, config.hidden_size)
        self.pos = nn.Parameter(torch.zeros(1, config.max_text_len, config.hidden_size))
        layer = nn.TransformerEncoderLayer(config.hidden_size, config.num_heads, 4 * config.hidden_size,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, config.num_layers)

    def forward(self, input_ids, attention_mask):
        h = self.tok(input_ids) + self.pos[:, : input_ids.size(1)]
        h = self.blocks(h, src_key_padding_mask=attention_mask == 0)
        return h[:, 0]


class M3DCLIP(PreTrainedModel):
    config_class = M3DCLIPConfig

    def __init__(self, config):
        super().__init__(config)
        self.vision_encoder = ViT3DEncoder(config)
        self.language_encoder = TextEncoder(config)
        self.mm_vision_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.mm_language_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def encode_image(self, image):
        return F.normalize(self.mm_vision_proj(self.vision_encoder(image)), dim=-1)

    def encode_text(self, input_id, attention_mask):
        return F.normalize(self.mm_language_proj(self.language_encoder(input_id, attention_mask)), dim=-1)

    def forward(self, images, input_ids, attention_mask, labels, **kwargs):
        image_features = self.encode_image(images)
        text_features = self.encode_text(input_ids, attention_mask)

        logits_per_image = self.logit_scale.exp() * image_features @ text_features.T
        logits_per_text = logits_per_image.T

        loss = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
        return {"loss": loss, "logits": (logits_per_image + logits_per_text) / 2.0}
