"""End-to-end tests: mlsleuth scan and trace on small amp training scripts (clean ones and realistic silent bugs)."""
