"""What starts the app (the top of the window's layers): the entry point, the self-test, the QApplication, the
platform check before Qt loads, logs."""
