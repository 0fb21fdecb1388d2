"""The main window: its layout for the screen, menu and shortcut actions, its dialogs and the benchmark tour."""
