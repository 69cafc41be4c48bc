"""Leaf-disease classification on small field-photo crops."""
