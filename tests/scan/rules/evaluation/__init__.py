"""Tests of the `evaluation` rules."""
