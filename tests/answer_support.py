"""A corpus for the answering tests: a "why" section followed by a "how" section, and unrelated documents (written
here, so the tests do not depend on the bundled sample's wording); a loopback port where nothing listens."""

import socket

import pytest

QUESTION = "Why must the database migration run before the rollout?"
DEPLOY = """# Deploy guide

## Why the migration runs first

The new release reads the invoice table through the new columns, so the schema must already have them when
the first new server starts. If the rollout started first, new servers would query columns that do not exist
yet and every request touching invoices would fail. The old release ignores the added columns, which is why
migrating first is safe while old servers are still running. Running the migration afterwards would leave a
window of failing requests until it finished.

## How to roll out

Open a shell on the release host and change to the release folder. Run `./manage migrate --plan` to see the
pending steps, then `./manage migrate` to apply them. Start the rollout with `deployctl rollout start web`.
Watch the dashboard until every server reports the new version.
"""
COFFEE = """# Coffee machine

## Descaling

Descale the coffee machine every month with the blue tablets. Fill the tank with fresh water, insert one
tablet and run the rinse programme twice. Empty the drip tray afterwards and wipe the steam wand.
"""
BACKUP = """# Notebook backups

## Nightly backups

The research notebook server is backed up every night at two o'clock. Backups are kept for thirty days on
the storage cluster. To restore a notebook, open a ticket with the notebook's name and the date you need.
"""


def closed_host() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (("deploy.md", DEPLOY), ("coffee.md", COFFEE), ("backup.md", BACKUP)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder
