"""Facts about one module, computed once before anything is rewritten: its pipelines, what each
name holds, and the constructs that block a conversion (``analysis``); pipelines of other modules
of the run (``crossfile``).

``values/`` says what an expression holds, ``sources/`` reads the forms a pipeline is written in,
``features/`` reads what a pipeline uses (external sources, framework iterators, checkpoints, ...).
"""
