"""Entry point of the desktop bundle: the GUI by default, ``chunk-workbench cli ...`` for the CLI."""

import sys


def run() -> int:
    """Dispatch to the CLI or the GUI."""
    if len(sys.argv) > 1 and sys.argv[1] == "cli":
        from workbench.cli import main as cli_main

        return cli_main(sys.argv[2:])
    from workbench.ui.app.launch import main as gui_main

    return gui_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(run())
