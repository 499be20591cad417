"""Rule documentation in ruff's format, generated from the catalogue.

``ndd-migrate explain CODE`` prints one entry; ``docs/rules.md`` is all of them
(``python -m ndd_migrate.docs > docs/rules.md``; a test keeps the file in sync).
"""

from __future__ import annotations

from ndd_migrate.engine.catalog import FAMILIES, Rule, all_rules


def rule_markdown(rule: Rule) -> str:
    parts = [
        f"## {rule.code} `{rule.name}`",
        "",
        f"{rule.summary}.",
        "",
        "### What it does",
        rule.what,
        "",
        "### Why is this bad?",
        rule.why,
        "",
    ]
    for i, example in enumerate(rule.examples, 1):
        title = f": {example.title}" if example.title else ""
        parts += [
            f"### Example{title}" if len(rule.examples) == 1 else f"### Example {i}{title}",
            "```python",
            example.before.rstrip("\n"),
            "```",
            "",
            "After `ndd-migrate migrate`:",
            "```python",
            example.after.rstrip("\n"),
            "```",
            "",
        ]
    parts += [
        "### Fix safety",
        f"**{rule.fix_safety.value}**. {rule.fix}",
        "",
    ]
    return "\n".join(parts)


def catalogue_markdown() -> str:
    rules = all_rules()
    lines = [
        "# Rule reference",
        "",
        "Generated from the rule catalogue (`ndd_migrate/rules/nddNNN_*.py`) by "
        "`python -m ndd_migrate.docs > docs/rules.md`; a test keeps it in sync. "
        "`ndd-migrate explain CODE` prints one entry.",
        "",
        "Codes are `NDD` + 3 digits; the first digit is the family, and `--select NDD1` picks a family:",
        "",
    ]
    lines += [f"- `{prefix}xx`: {name}" for prefix, name in FAMILIES.items()]
    lines += ["", "| code | name | fix | summary |", "|---|---|---|---|"]
    lines += [
        f"| [{r.code}](#{r.code.lower()}-{r.name}) | `{r.name}` | {r.fix_safety.value} | {r.summary} |" for r in rules
    ]
    lines.append("")
    for rule in rules:
        lines.append(rule_markdown(rule))
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(catalogue_markdown(), end="")
