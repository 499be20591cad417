"""Running ``migrate`` and ``check`` over many files: the byte prefilter, the results cache and
the worker pool.
"""
