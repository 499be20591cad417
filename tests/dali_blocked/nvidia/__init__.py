"""Stand-in for the ``nvidia`` package in the processes of a ``pytest -m "not dali"`` run (tests/conftest.py
puts this folder first on their ``PYTHONPATH``): every other ``nvidia.*`` package is still found where
it is installed; ``nvidia.dali`` is this folder's, whose import fails."""

__path__ = __import__("pkgutil").extend_path(__path__, __name__)
