"""``python -m interpreter`` runs the ``rulebook`` command."""
import sys

from .command import main

sys.exit(main())
