"""``python -m workbench`` starts the desktop app."""

import sys

from workbench.ui.app import main

sys.exit(main())
