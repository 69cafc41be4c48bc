"""weavecheck: defect classification for woven-fabric inspection patches."""
__version__ = "0.2.0"
