from .classifier import IntentClassifier


def build_model(cfg, vocab_size: int, n_classes: int, pad_id: int) -> IntentClassifier:
    return IntentClassifier(vocab_size, n_classes, max_len=cfg.max_len, dim=cfg.dim, depth=cfg.depth,
                            n_heads=cfg.n_heads, mlp_mult=cfg.mlp_mult, dropout=cfg.dropout, pad_id=pad_id)
