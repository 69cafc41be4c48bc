import torch
import torch.nn.functional as F
from transformers import Trainer


class WeightedLMTrainer(Trainer):
    """Causal-LM trainer that up-weights tokens of the assistant turn."""

    def __init__(self, *args, assistant_weight=2.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.assistant_weight = assistant_weight

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        weights = inputs.pop("token_weights")
        outputs = model(**inputs)
        logits = outputs.logits[:, :-1].float()
        labels, weights = labels[:, 1:], weights[:, 1:]
        per_token = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                                    ignore_index=-100, reduction="none")
        mask = labels.reshape(-1).ne(-100)
        w = torch.where(weights.reshape(-1) > 0, self.assistant_weight, 1.0) * mask
        loss = (per_token * w).sum() / mask.sum()
        return (loss, outputs) if return_outputs else loss
