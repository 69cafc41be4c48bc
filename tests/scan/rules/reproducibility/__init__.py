"""Tests of the `reproducibility` rules."""
