"""linkgraph: link prediction with graph neural encoders on attributed graphs."""
__version__ = "0.3.1"
