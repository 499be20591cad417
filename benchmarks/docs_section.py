"""Writing a benchmark's section of ``docs/benchmarks.md``, shared by the benchmarks that record
their results there.

A section is ``## Title``, the latest run's report, then ``###`` subsections: earlier measurements
written by hand, with what they showed and what changed. A new run replaces the report and keeps
the subsections (and every other section): the record of earlier runs is not lost to the next.
"""

from __future__ import annotations

from pathlib import Path


def write_section(docs: Path, text: str, section: str, intro: str = "") -> None:
    """Replace (or add, after ``intro`` when ``docs`` does not exist yet) the part of ``docs``'s
    ``section`` before its first ``###`` subsection with ``text`` (which starts with ``section``)."""
    current = docs.read_text(encoding="utf-8") if docs.exists() else intro
    start = current.find(section)
    if start < 0:
        updated = current.rstrip("\n") + "\n\n" + text
    else:
        ends = [
            i
            for i in (current.find("\n## ", start + len(section)), current.find("\n### ", start + len(section)))
            if i >= 0
        ]
        following = min(ends) if ends else -1
        rest = current[following + 1 :] if following >= 0 else ""
        updated = current[:start] + text + ("\n" + rest if rest else "")
    docs.write_text(updated, encoding="utf-8")
