"""One file through the rules: the rule base and catalogue, the per-file context, the conversion
decisions, the single rewriting traversal and its passes.
"""
