"""End-to-end tests per training framework (Lightning, Hugging Face, accelerate, AMP, torch.compile, DDP): one subpackage each."""
