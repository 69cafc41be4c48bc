"""clapmini: contrastive audio-text pretraining (CLAP-style) at toy scale."""
__version__ = "0.5.0"
