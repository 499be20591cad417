"""The migration plan: every use of every value a conversion changes, and who claims it."""
