"""``nvidia.dali`` in a process started by a ``pytest -m "not dali"`` run: importing it is an error, so
a test that starts DALI without the ``dali`` marker fails instead of slowing the fast loop down."""

raise RuntimeError(
    "nvidia.dali imported by a program a test started under `-m 'not dali'`: mark that test @pytest.mark.dali"
)
