"""``python -m workbench`` starts the desktop app."""

import sys

from workbench.ui.app.launch import main

sys.exit(main())
