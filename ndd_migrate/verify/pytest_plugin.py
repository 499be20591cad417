"""pytest plugin: one test per migrated loader, so ``pytest -n auto`` (pytest-xdist) spreads the
checks over the cores and ``--ndd-verify-shard K/N`` over machines.

Installed with the package (entry point ``pytest11``: ``ndd_migrate_verify``), it does nothing
unless asked: ``--ndd-verify`` (or ``--ndd-verify-base REV``) on the command line, or a
``[tool.ndd-migrate.verify]`` table in the ``pyproject.toml`` of pytest's root directory. Then it
adds one item per loader (:mod:`.ci` says which) after the tests pytest collected, marked
``ndd_verify`` (``-m ndd_verify`` runs only them). Each item runs ``verify`` on its loader; it
fails with the report when the two sides differ or could not be compared, and the report of a
passing item is a section of its own (``-rA`` shows it).

Importing this module costs nothing beyond the standard library: it runs in every pytest run of an
environment ndd-migrate is installed in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ndd_migrate.verify import ci

MARKER = "ndd_verify"
#: how many loaders this run collected; absent when the plugin was not asked for
LOADERS = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ndd-verify", "ndd-migrate verify: one test per migrated loader")
    group.addoption(
        "--ndd-verify",
        action="store_true",
        default=False,
        help="collect one test per migrated loader (the loaders: [tool.ndd-migrate.verify] in pyproject.toml)",
    )
    group.addoption(
        "--ndd-verify-base",
        metavar="REV",
        default=None,
        help="the loaders are the files changed against REV, each compared with its text at REV",
    )
    group.addoption(
        "--ndd-verify-shard",
        metavar="K/N",
        default=None,
        help="only the K-th of N shards of the loaders (one shard per CI machine)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a migrated loader proven by ndd-migrate verify")


def _config(config: pytest.Config) -> ci.CiConfig | None:
    """The plugin's configuration, or None when it was not asked for."""
    root = Path(config.rootpath)
    try:
        table = ci.read_table(root)
        base = config.getoption("--ndd-verify-base")
        if table is None and not base and not config.getoption("--ndd-verify"):
            return None
        return ci.make_config(table, base)
    except ci.ConfigError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.hookimpl(tryfirst=True)  # before -m / -k deselect: they see these items too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    settings = _config(config)
    if settings is None:
        return
    try:
        found = ci.loaders(settings, Path(config.rootpath))
        spec = config.getoption("--ndd-verify-shard")
        if spec:
            found = ci.shard(found, spec)
    except ci.ConfigError as e:
        raise pytest.UsageError(str(e)) from None
    config.stash[LOADERS] = len(found)
    # Collected as pytest collects files: the terminal counts them, --collect-only lists them.
    collector = Loaders.from_parent(session, name=MARKER, nodeid=MARKER, loaders=found, settings=settings)
    items.extend(session.genitems(collector))


class Loaders(pytest.Collector):
    """The loaders of this run, one item each."""

    def __init__(self, *, loaders: list[ci.Loader], settings: ci.CiConfig, **kwargs):
        super().__init__(**kwargs)
        self.loaders, self.settings = loaders, settings

    def collect(self) -> list[pytest.Item]:
        root = Path(self.config.rootpath)
        return [
            LoaderItem.from_parent(
                self,
                name=f"{MARKER}[{loader.name}]",
                nodeid=f"{loader.migrated}::{MARKER}",
                path=root / loader.migrated,
                loader=loader,
                settings=self.settings,
            )
            for loader in self.loaders
        ]


class LoaderFailed(Exception):
    """The loader's check said different or could not run; the message is the report."""


class LoaderItem(pytest.Item):
    """``verify`` on one migrated loader."""

    def __init__(self, *, loader: ci.Loader, settings: ci.CiConfig, **kwargs):
        super().__init__(**kwargs)
        self.loader, self.settings = loader, settings
        self.add_marker(MARKER)

    def runtest(self) -> None:
        report = ci.run(self.loader, self.settings, Path(self.config.rootpath))
        text = report.to_text()
        self.add_report_section("call", "ndd-migrate verify", text)
        if report.exit_code != 0:
            raise LoaderFailed(f"{self.loader.name}: {report.verdict} (exit code {report.exit_code})\n{text}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, LoaderFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"ndd-migrate verify {self.loader.name}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No migrated loader (a change that migrates none, a shard with none left) is a pass, not
    pytest's "no tests collected" (exit code 5), which would fail the CI job."""
    if session.config.stash.get(LOADERS, None) == 0 and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if config.stash.get(LOADERS, None) == 0:
        terminalreporter.write_line("ndd-verify: no migrated loader to prove")
