"""Allow ``python -m mlsleuth``."""

import sys

from mlsleuth.cli import main

sys.exit(main())
