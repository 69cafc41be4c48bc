"""Tests of mlsleuth.scan, mirroring the package (rules/<category>/test_<rule_id>.py)."""
