import torch
import torch.nn.functional as F


def clip_loss(audio_embed, text_embed, logit_scale):
    """Symmetric InfoNCE: row i of the audio-to-text logits should pick column i and vice versa."""
    logits = logit_scale * audio_embed @ text_embed.t()
    target = torch.arange(logits.shape[0], device=logits.device)
    return 0.5 * (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target))
