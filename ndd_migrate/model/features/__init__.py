"""What a pipeline uses beyond its operators: external sources, framework iterators, checkpoints,
twin readers, uses only a real ``Pipeline`` serves, tests that expect an error.
"""
