"""PyTorch Lightning end to end: scan, trace, nan and the callback on small CPU Lightning scripts (scripts/)."""
