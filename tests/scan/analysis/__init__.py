"""Tests of mlsleuth.scan.analysis."""
