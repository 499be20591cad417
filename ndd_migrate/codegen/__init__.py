"""Code builders the rules share: the shapes a migration writes (the generator function, the
epoch-aware pair, the framework-iterator helper, the loop that drives an external source) and small
expression rewrites several rules need. Rules import these; these import no rule."""
