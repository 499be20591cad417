"""Hand-written pipeline / migrated pairs for the verify tests (docs/target-shape.md shape).

``*_pipes.py`` hold original pipeline-mode functions, ``*_ndd.py`` their migrations, and
``*_wrong.py`` deliberately wrong migrations that verify must catch. ``datasets.py`` writes the
small datasets they read into temporary directories.
"""
