"""``python -m ndd_migrate.verify ORIGINAL MIGRATED ...`` — the verify command without typer."""

import sys

from ndd_migrate.verify.command import main

if __name__ == "__main__":
    sys.exit(main())
