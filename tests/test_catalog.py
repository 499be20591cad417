"""The rule catalogue: every rule's examples and valid snippets run; docs stay in sync."""

from __future__ import annotations

import re

import pytest

from ndd_migrate.docs import catalogue_markdown
from ndd_migrate.engine.catalog import FAMILIES, all_rules, get_rule, rule_module
from ndd_migrate.io.policy import OPT_IN, Policy, every_rule
from tests.conftest import ROOT, migrate_text

RULES = all_rules()
EXAMPLES = [(r.code, i, ex) for r in RULES for i, ex in enumerate(r.examples)]
VALID = [(r.code, i, snippet) for r in RULES for i, snippet in enumerate(r.valid)]


def test_catalogue_is_complete_and_well_formed():
    codes = [r.code for r in RULES]
    assert len(codes) == len(set(codes))
    for rule in RULES:
        assert re.fullmatch(r"NDD\d{3}", rule.code)
        assert rule.code[:4] in FAMILIES
        assert rule.examples, f"{rule.code} has no example"
        assert rule.what and rule.why and rule.fix and rule.summary
        assert rule_module(rule.code).__name__.endswith(rule.code.lower() + "_" + rule.name.replace("-", "_"))


def _selecting(code: str):
    """The default policy, or for an opt-in rule (off by default, io.policy.OPT_IN) one selecting it."""
    return Policy(is_enabled=lambda c, path=None: c == code or every_rule(c)) if code in OPT_IN else None


@pytest.mark.parametrize("code,index,example", EXAMPLES, ids=[f"{c}-{i}" for c, i, _ in EXAMPLES])
def test_example_migrates_exactly(code, index, example):
    got, result = migrate_text(example.before, policy=_selecting(code))
    assert result.error is None
    assert got == example.after
    assert any(d.code == code for d in result.diagnostics), f"{code} reported nothing on its own example"
    again, second = migrate_text(got, policy=_selecting(code))
    assert again == got, "a second run changed the output"


def _one_name_unpacks_of_fn(source: str) -> list[str]:
    """``(x,) = fn.op(...)``: in pipeline mode an op with one output returns a DataNode, which is
    not iterable (DALI 2.4: ``TypeError``), and one with more returns a longer list."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = ast.unparse(node.value.func)
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 1 and func.startswith("fn."):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("code,index,example", EXAMPLES, ids=[f"{c}-{i}" for c, i, _ in EXAMPLES])
def test_example_is_pipeline_code_that_runs(code, index, example):
    assert _one_name_unpacks_of_fn(example.before) == []


def test_one_name_unpack_of_an_op_is_found():
    assert _one_name_unpacks_of_fn("(data,) = fn.readers.numpy(file_root=r)\n") != []
    assert _one_name_unpacks_of_fn("data = fn.readers.numpy(file_root=r)\n") == []


@pytest.mark.parametrize("code,index,snippet", VALID, ids=[f"{c}-valid{i}" for c, i, _ in VALID])
def test_valid_snippet_is_left_alone(code, index, snippet):
    got, result = migrate_text(snippet, policy=_selecting(code))
    assert result.error is None
    assert [d for d in result.diagnostics if d.code == code] == []
    assert got == snippet


def test_docs_rules_md_is_in_sync():
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == catalogue_markdown(), (
        "regenerate with: python -m ndd_migrate.docs > docs/rules.md"
    )


def test_rules_and_explain_commands(cli):
    listing = cli("rules", "--output-format", "json")
    assert listing.exit_code == 0
    assert '"NDD103"' in listing.stdout
    explained = cli("explain", "ndd103")
    assert explained.exit_code == 0
    assert "## NDD103 `mixed-device`" in explained.stdout
    assert "### Fix safety" in explained.stdout
    assert cli("explain", "NDD999").exit_code == 2


def test_get_rule_is_case_insensitive():
    assert get_rule("ndd001").code == "NDD001"
    assert get_rule("NDD000") is None
