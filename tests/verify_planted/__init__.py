"""Planted mistakes: correct migrations, and wrong ones made from them by one-line substitutions
(mutations.py); verify must keep the first EQUAL and catch every one of the others."""
