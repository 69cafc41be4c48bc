"""Optional framework integrations: each module imports its framework lazily."""
