"""Tests of the `numerical` rules."""
