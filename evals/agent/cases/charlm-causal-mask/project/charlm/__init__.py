"""Tiny character-level GPT for the synthetic-corpus experiments."""
