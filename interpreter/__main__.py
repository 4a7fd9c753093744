"""``python -m interpreter`` runs the ``rulebook`` command."""
import sys

from .cli import main

sys.exit(main())
