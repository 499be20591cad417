"""The rules: one module per rule code (``nddNNN_<name>.py``), each holding the rule's documentation,
its examples and its implementation. The catalogue (:mod:`ndd_migrate.engine.catalog`) finds them by name.

Operator tables generated from DALI's schemas live in :mod:`ndd_migrate.dali.tables`.
"""
