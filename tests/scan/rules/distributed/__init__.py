"""Tests of the `distributed` rules."""
