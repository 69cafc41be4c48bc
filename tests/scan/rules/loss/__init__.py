"""Tests of the `loss` rules."""
