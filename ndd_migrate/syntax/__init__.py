"""Python source as the rest of the package sees it: CPython's verdict, libcst trees (parsed in
pieces for large modules), the DALI region of a module, scopes and the names that mean DALI objects,
and small libcst helpers.
"""
