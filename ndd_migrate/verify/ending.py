"""Where a side ends (the generator of a legacy class whose ``iter_setup`` raises ``StopIteration``),
and finishing a generator at once.

Pipeline mode makes ``pipe.run()`` raise ``StopIteration`` when ``iter_setup`` does
(``Pipeline._run_once``); the migration ends its generator (``return``) at the same place, so
``next(gen)`` raises ``StopIteration`` at the same step (docs/target-shape.md, "External input fed
in ``iter_setup``"). Either side's end is recorded as the index of the step that raised (the number
of steps it produced). An end is correct only when the other side ends at the same step; the
migrated side runs first, so when it ends the original side runs one step more to see that it
ends there too.

With ``--epochs`` and no reader an epoch is the feed itself: the steps until ``iter_setup`` raises
``StopIteration``. A generator cannot start a second one (``pipe.reset()`` after the end is
NDD008), so such a run covers one epoch, whatever ``--epochs`` asks.
"""

from __future__ import annotations

from typing import Any


def end_findings(original: int | None, migrated: int | None) -> list[tuple[str, str]]:
    """The finding for ends that differ (``None``: that side did not end in the steps run)."""
    if original == migrated:
        return []
    if original is None:
        return [
            (
                "error",
                f"the migrated generator ended at step {migrated} (next() raised StopIteration after "
                f"{migrated} step(s)) but the original's pipe.run() returned a batch there: the "
                "migration ends early",
            )
        ]
    if migrated is None:
        return [
            (
                "error",
                f"the original ended at step {original} (pipe.run() raised StopIteration: its "
                f"iter_setup ran out) but the migrated generator yielded a batch there: the "
                "migration does not end where the original does",
            )
        ]
    return [
        (
            "error",
            f"the original ended at step {original} and the migrated generator at step {migrated} "
            "(StopIteration): the two sides end at different steps",
        )
    ]


def end_fact(original: int | None, migrated: int | None) -> str | None:
    """The report line for an end both sides agree on."""
    if original is None or original != migrated:
        return None
    return f"both sides ended at step {original} (StopIteration)"


def close_generator(gen: Any) -> None:
    """Finish a migrated generator now, not whenever it is collected: a suspended generator
    inside ``next_epoch(capture=True)`` keeps its capture loop active, and DALI allows only one
    at a time."""
    import gc

    close = getattr(gen, "close", None)
    if close is not None:
        try:
            close()
        except Exception:
            pass
    gc.collect()
