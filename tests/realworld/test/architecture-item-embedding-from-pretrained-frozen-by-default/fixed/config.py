CONFIG = {
    "n_users": 120,
    "n_items": 80,
    "embedding_size": 8,
    "n_time_buckets": 12,
    "lr": 0.02,
    "epochs": 30,
    "batch_size": 256,
    "seed": 0,
}
