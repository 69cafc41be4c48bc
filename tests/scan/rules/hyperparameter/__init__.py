"""Tests of the `hyperparameter` rules."""
