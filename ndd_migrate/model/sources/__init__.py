"""The forms a pipeline is written in, read as the ``@pipeline_def`` function they stand for: legacy
``Pipeline`` subclasses, hand-built ``with pipe:`` graphs, base classes with subclasses, graph-helper
methods.
"""
