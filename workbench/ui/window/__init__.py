"""The main window: its layout for the screen, menu and shortcut actions, job workers and progress."""
