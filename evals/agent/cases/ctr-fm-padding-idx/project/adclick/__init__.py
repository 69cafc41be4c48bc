"""adclick: click-through-rate models for the sponsored-listing slots."""
