from .attention import MultiHeadSelfAttention, ScaledDotProductAttention
from .embedding import FeatureEmbedding

__all__ = ["MultiHeadSelfAttention", "ScaledDotProductAttention", "FeatureEmbedding"]
