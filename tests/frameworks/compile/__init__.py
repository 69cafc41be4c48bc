"""End-to-end tests: mlsleuth scan and trace on small compile training scripts (clean ones and realistic silent bugs)."""
