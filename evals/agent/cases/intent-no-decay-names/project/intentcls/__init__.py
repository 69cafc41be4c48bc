"""intentcls: a small transformer intent classifier for the support assistant."""
