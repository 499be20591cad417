"""ndd-migrate: move NVIDIA DALI pipeline-mode code to dynamic mode (``nvidia.dali.experimental.dynamic``).

The codemod and lint core (everything outside :mod:`ndd_migrate.verify`) never imports DALI, so the
pre-commit hook stays light; ``verify`` imports DALI lazily.
"""

__version__ = "0.1.0"
