"""Reading and writing the user's project, standard library only: files and their discovery,
``.gitignore``, ``[tool.ndd-migrate]``, what a run may change, ``# noqa``, diagnostics, notebooks.

Nothing here imports libcst, so a pre-commit run over files that never mention DALI stays cheap.
"""
