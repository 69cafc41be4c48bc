from .dataset import IntentDataset, PadCollator, build_data
from .tokenizer import WordTokenizer

__all__ = ["IntentDataset", "PadCollator", "build_data", "WordTokenizer"]
