"""Tests of the `data` rules."""
