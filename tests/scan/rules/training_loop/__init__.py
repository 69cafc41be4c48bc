"""Tests of the `training-loop` rules."""
