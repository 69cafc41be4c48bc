"""defectcls: surface-defect classification from patch descriptors."""

__version__ = "1.2.0"
