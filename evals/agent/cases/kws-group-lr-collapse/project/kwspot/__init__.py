"""kwspot: small keyword-spotting models on a learnable filterbank front end."""
__version__ = "0.3.1"
