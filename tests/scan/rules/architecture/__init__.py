"""Tests of the `architecture` rules."""
