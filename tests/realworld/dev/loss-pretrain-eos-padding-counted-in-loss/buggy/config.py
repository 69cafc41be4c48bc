from types import SimpleNamespace

cfg = SimpleNamespace(
    vocab_size=100008,
    eos_id=100007,
    ignore_index=-100,
    seq_len=2048,
    lr=3e-4,
)
