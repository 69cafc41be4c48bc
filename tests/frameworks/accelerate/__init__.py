"""End-to-end tests: mlsleuth scan and trace on small accelerate training scripts (clean ones and realistic silent bugs)."""
