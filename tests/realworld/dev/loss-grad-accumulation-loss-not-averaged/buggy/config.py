config = {
    "batch_size": 12,
    "block_size": 1024,
    "gradient_accumulation_steps": 40,
    "learning_rate": 6e-4,
    "grad_clip": 0.0,
    "max_iters": 600000,
    "log_interval": 10,
}
