"""Running programs for the tests: each in a fresh process, started from a zygote that has imported DALI
once; the original (pipeline-mode) side of a comparison run once and kept by content.

The ``programs`` fixture (tests/conftest.py, :class:`Programs`) is the one way a test runs an original
program and its migration and compares what they did. What it builds on:

* :class:`Zygote` (tests/zygote.py): a process per pytest process that has imported numpy, PyTorch,
  DALI, its dynamic mode and its PyTorch plugin, and forks a child for each program. Each program
  still gets a process of its own, as a user's would (a DALI pipeline and dynamic-mode threads in one
  process were seen to deadlock under load); it only skips the 2 to 5 s of imports.
* the process handling of ``verify`` (:mod:`ndd_migrate.verify.runner`): standard streams in files,
  the process group killed at the timeout, the line the program hung at found in the stacks
  ``faulthandler`` printed. ``verify``'s own worker processes are forked from the zygote too in the
  tests (:data:`VERIFY_SUBPROCESS`).
* :class:`Originals`: an original program's result kept in pytest's cache (``.pytest_cache``) under
  the hash of what decides it (its text, arguments, data, DALI's version, this harness), so a test
  run again, or another test with the same original, does not run it again.
* :func:`dataset`: the data the programs read, made once in a folder named after the generator and
  its parameters, so that a cached original and a new run read the same path.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.metadata
import inspect
import json
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import types
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ndd_migrate import support
from ndd_migrate.verify import runner

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _search_path(env: dict) -> list[str]:
    """``PYTHONPATH`` of ``env`` as folders, without the project's (``verify`` adds it)."""
    return [
        os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.abspath(p) != str(ROOT)
    ]


class Zygote:
    """The pre-imported process programs are forked from (tests/zygote.py): started at the first
    program, with the environment this process had when the tests began, and stopped at exit."""

    def __init__(self) -> None:
        self.environment = dict(os.environ)
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._folder = ""

    def serves(self, env: dict) -> bool:
        """Whether a program with the environment ``env`` may be forked from it: the same variables,
        but for the project's folder on ``PYTHONPATH`` and the test pytest names in
        ``PYTEST_CURRENT_TEST``. Others (a test that sets ``PYTHONPATH`` to hide DALI, say) need an
        interpreter of their own."""
        same = lambda e: {k: v for k, v in e.items() if k not in ("PYTHONPATH", "PYTEST_CURRENT_TEST")}  # noqa: E731
        return same(env) == same(self.environment) and _search_path(env) == _search_path(self.environment)

    def _socket_path(self) -> str:
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._start()
            return os.path.join(self._folder, "socket")

    def _start(self) -> None:
        self._folder = tempfile.mkdtemp(prefix="ndd-zygote-")
        env = dict(self.environment)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
        with open(os.path.join(self._folder, "stderr"), "wb") as errors:
            self._process = subprocess.Popen(
                [sys.executable, str(HERE / "zygote.py"), os.path.join(self._folder, "socket")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                cwd=ROOT,
                env=env,
                start_new_session=True,
            )
        if self._process.stdout.readline() != b"ready\n":
            self._process.wait()
            raise RuntimeError(f"the zygote did not start:\n{runner._tail(os.path.join(self._folder, 'stderr'))}")
        atexit.register(self.stop)

    def stop(self) -> None:
        """Close its standard input (it exits), and take its group down if it does not."""
        process, self._process = self._process, None
        if process is None:
            return
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            runner._kill_group(process)
        process.stdout.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def spawn(self, request: dict, fds: list[int], args: list[str]) -> Forked:
        """A child running ``request`` (see tests/zygote.py) with ``fds`` as its stdin, stdout and
        stderr; ``args``: its command line, for messages."""
        return Forked(self._socket_path(), request, fds, args)


ZYGOTE = Zygote()


class Forked:
    """A child of the zygote, with the part of :class:`subprocess.Popen` that ``verify``'s runner and
    this harness use (``pid``, ``returncode``, ``args``, ``wait``, ``poll``, ``kill``). Its pid is its
    process group's (it runs in a session of its own)."""

    def __init__(self, socket_path: str, request: dict, fds: list[int], args: list[str]) -> None:
        self.args, self.returncode = args, None
        self._answers = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._answers.connect(socket_path)
        socket.send_fds(self._answers, [json.dumps(request).encode()], fds)
        self.pid = int(self._answer("pid"))

    def _answer(self, word: str) -> str:
        message = self._answers.recv(64).decode()
        if not message.startswith(word + " "):
            raise RuntimeError(f"the zygote answered {message!r} where it should give the child's {word}")
        return message.split()[1]

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._answers.settimeout(timeout)
            try:
                status = int(self._answer("status"))
            except (TimeoutError, BlockingIOError):
                raise subprocess.TimeoutExpired(self.args, timeout) from None
            self.returncode = os.waitstatus_to_exitcode(status)
            self._answers.close()
        return self.returncode

    def poll(self) -> int | None:
        try:
            return self.wait(timeout=0)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _popen(cmd, *, stdin=None, stdout=None, stderr=None, env=None, cwd=None, start_new_session=False):
    """``subprocess.Popen(cmd, ...)`` for ``cmd`` = ``[sys.executable, ("-X", "faulthandler"), "-m"
    module | "-c" code | script, *args]``, forked from the zygote when it :meth:`~Zygote.serves` the
    environment (in a session of its own, always), else started as usual. Streams: files, file
    descriptors, ``None`` (this process's) or ``DEVNULL``."""
    cmd, env = list(cmd), dict(os.environ if env is None else env)
    if not ZYGOTE.serves(env):
        return subprocess.Popen(
            cmd, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd, start_new_session=start_new_session
        )
    assert cmd[0] == sys.executable, cmd
    faulthandler = cmd[1:3] == ["-X", "faulthandler"]
    rest = cmd[3:] if faulthandler else cmd[1:]
    if rest[0] in ("-m", "-c"):
        kind, target, args = {"-m": "module", "-c": "code"}[rest[0]], rest[1], rest[2:]
    else:
        kind, target, args = "path", rest[0], rest[1:]
    opened, fds = [], []
    for stream, default in ((stdin, 0), (stdout, 1), (stderr, 2)):
        if stream is None:
            fds.append(default)
        elif stream == subprocess.DEVNULL:
            opened.append(os.open(os.devnull, os.O_RDWR))
            fds.append(opened[-1])
        else:
            fds.append(stream if isinstance(stream, int) else stream.fileno())
    request = {
        "kind": kind,
        "target": target,
        "args": args,
        "cwd": str(cwd or os.getcwd()),
        "env": env,
        "faulthandler": faulthandler,
    }
    try:
        return ZYGOTE.spawn(request, fds, cmd)
    finally:
        for fd in opened:
            os.close(fd)


#: Stands for the ``subprocess`` module in :mod:`ndd_migrate.verify.runner` during the test session
#: (tests/conftest.py): ``verify``'s worker processes are forked from the zygote.
VERIFY_SUBPROCESS = types.SimpleNamespace(
    Popen=_popen, DEVNULL=subprocess.DEVNULL, TimeoutExpired=subprocess.TimeoutExpired
)


@dataclass(frozen=True)
class Ran:
    """What a program did: its exit status, what it printed, and the files it was asked to write
    (name relative to its folder → bytes)."""

    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, bytes] = field(default_factory=dict)


def run(
    script: Path, args: list[str] = (), *, cwd: Path | None = None, timeout: float = 120, outputs: list[str] = ()
) -> Ran:
    """``python -X faulthandler script *args`` in a fresh process (forked from the zygote), in
    ``cwd`` (the script's folder by default). A run still going at ``timeout`` gets ``SIGABRT`` (its
    ``faulthandler`` prints every thread's stack), then its process group is killed, and it is run once
    more (DALI was seen to hang under load); a second hang fails the test with the line of the
    script it hung at and those stacks."""
    script = Path(script)
    cmd = [sys.executable, "-X", "faulthandler", str(script), *map(str, args)]
    for attempt in (1, 2):
        with tempfile.TemporaryDirectory(prefix="ndd-run-") as streams:
            paths = [os.path.join(streams, name) for name in ("stdout", "stderr")]
            with open(paths[0], "wb") as out, open(paths[1], "wb") as err:
                child = _popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    cwd=cwd or script.parent,
                    start_new_session=True,
                )
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(child.pid, signal.SIGABRT)
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    pass
                runner._kill_group(child)
                if attempt == 1:
                    continue
                stacks = runner._read(paths[1])
                where = runner._location_from_dump(stacks, {str(script)}) or "a line outside it"
                pytest.fail(f"{script.name} hung twice: stopped after {timeout:g} s at {where}\n{stacks[-4000:]}")
            except BaseException:
                runner._kill_group(child)
                raise
            found = {name: (script.parent / name).read_bytes() for name in outputs if (script.parent / name).exists()}
            return Ran(child.returncode, runner._read(paths[0]), runner._read(paths[1]), found)
    raise AssertionError("unreachable")


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _tree_digest(path: Path) -> str:
    """The hash of a file's bytes, or of a folder's file names and bytes."""
    h = hashlib.sha256()
    for file in sorted(p for p in ([path] if path.is_file() else path.rglob("*")) if p.is_file()):
        h.update(str(file.relative_to(path) if file != path else "").encode() + b"\0" + file.read_bytes())
    return h.hexdigest()


def _environment() -> list[str]:
    """What the programs run on, in the cache key: Python, and the installed DALI, PyTorch, numpy."""
    found = [sys.version]
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("nvidia-dali") or name in ("torch", "numpy", "pillow"):
            found.append(f"{name}=={dist.version}")
    return sorted(found)


#: This harness's own text: a change to how programs are run is a change of every key.
HARNESS = _tree_digest(HERE / "harness.py") + _tree_digest(HERE / "zygote.py")


class Originals:
    """Results of original programs, kept by content in ``folder`` (pytest's cache; ``None``: kept
    nowhere). The key is the hash of the harness, the environment (:func:`_environment`), the
    program's text, its arguments and working folder (with the program's own folder written as
    ``<here>``: each run has its own) and the content of every file or folder an argument names.
    A run is kept only when it exited with 0: a failure is looked at again next time."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._environment = _environment()

    def key(self, script: Path, args: list[str], cwd: Path | None, outputs: list[str]) -> str:
        here = str(script.parent)
        named = []
        for arg in map(str, args):
            path = Path(arg)
            named.append(
                [arg.replace(here, "<here>"), _tree_digest(path) if path.is_absolute() and path.exists() else None]
            )
        where = str(cwd or here).replace(here, "<here>")
        return _digest(HARNESS, self._environment, script.read_text(encoding="utf-8"), named, where, list(outputs))

    def run(
        self,
        script: Path,
        args: list[str] = (),
        *,
        cwd: Path | None = None,
        timeout: float = 120,
        outputs: list[str] = (),
    ) -> Ran:
        """:func:`run`, or what it gave for the same key before."""
        script = Path(script)
        if self.folder is None:
            return run(script, args, cwd=cwd, timeout=timeout, outputs=outputs)
        kept = self.folder / self.key(script, args, cwd, outputs)
        if kept.exists():
            with open(kept, "rb") as f:
                return pickle.load(f)
        ran = run(script, args, cwd=cwd, timeout=timeout, outputs=outputs)
        if ran.returncode == 0:
            partial = kept.with_name(f"{kept.name}.{os.getpid()}")
            partial.write_bytes(pickle.dumps(ran))
            os.replace(partial, kept)
        return ran


def dataset(folder: Path, make, *args):
    """``make(root, *args)`` (a generator of fixtures/datasets.py, say) run once, into a folder under
    ``folder`` named after the generator's module text, its name and ``args``, and reused from there
    (by every pytest process, and by later runs when ``folder`` is pytest's cache). Returns what
    ``make`` returns (a path, or a dict of them), under that folder."""
    module = Path(inspect.getsourcefile(make))
    final = folder / f"{make.__name__}-{_digest(_tree_digest(module), make.__qualname__, args)[:16]}"
    if not final.exists():
        building = Path(tempfile.mkdtemp(prefix=f"{final.name}.", dir=folder))
        made = make(str(building / "data"), *args)
        if isinstance(made, dict):
            relative = {k: str(Path(v).relative_to(building)) for k, v in made.items()}
        else:
            relative = str(Path(made).relative_to(building))
        (building / "made.json").write_text(json.dumps(relative))
        try:
            os.rename(building, final)
        except OSError:  # another pytest process made it first
            shutil.rmtree(building)
    relative = json.loads((final / "made.json").read_text())
    if isinstance(relative, dict):
        return {k: final / v for k, v in relative.items()}
    return final / relative


def with_support_module(folder: Path, text: str) -> None:
    """The project's support module written into ``folder`` when the migrated ``text`` imports it
    (``migrate`` writes it beside a script; the engine alone, which tests call, does not)."""
    if f"from {support.FILE_NAME[:-3]} import" in text:
        (folder / support.FILE_NAME).write_text(support.text(), encoding="utf-8")


def seen_script(text: str) -> str:
    """``text`` as a script for :meth:`Programs.seen_by_both`."""
    return (
        "import os as _os, pickle as _pickle, sys as _sys\nROOT, SEEN = _sys.argv[1], []\n"
        + text
        + "\nwith open(_os.path.join(_os.path.dirname(__file__), 'seen.pkl'), 'wb') as _f:\n    _pickle.dump(SEEN, _f)\n"
    )


class Programs:
    """What a test that runs programs is given (the ``programs`` fixture of tests/conftest.py):
    :meth:`both` runs an original program and its migration, each in a fresh process, the original's
    result kept by content; :meth:`run` runs one program; :meth:`dataset` makes the data they read."""

    def __init__(self, originals: Originals, data_folder: Path, tmp_path: Path) -> None:
        self._originals, self._data_folder, self._tmp_path = originals, data_folder, tmp_path

    def both(self, original: str, migrated: str, args=(), *, name: str = "program.py", **options) -> tuple[Ran, Ran]:
        """``(original's run, migrated's run)``: each text written as ``name`` in a folder of its own
        (``original/``, ``migrated/`` under the test's ``tmp_path``) and run with ``args`` (options:
        :func:`run`'s); each must exit with 0, else the test fails with its stderr."""
        runs = []
        for side, text in (("original", original), ("migrated", migrated)):
            script = self._tmp_path / side / name
            script.parent.mkdir()
            script.write_text(text, encoding="utf-8")
            if side == "migrated":
                with_support_module(script.parent, text)
            ran = (self._originals.run if side == "original" else run)(script, args, **options)
            assert ran.returncode == 0, f"the {side} {name} failed (exit {ran.returncode}):\n{ran.stderr[-3000:]}"
            runs.append(ran)
        return runs[0], runs[1]

    def seen_by_both(self, original: str, migrated: str, root) -> tuple[list, list]:
        """What an original program and its migration appended to ``SEEN``, each run in a process of
        its own (a DALI pipeline and dynamic-mode worker threads sharing one test process were seen
        to deadlock inside DALI, ``SetupAndRun`` never returning, under load). Each text is made a
        script: ``ROOT`` is its first argument (``root``), and ``SEEN`` is pickled into ``seen.pkl``
        beside it. They run in the repository's folder (a relative ``root`` is read from there)."""
        runs = self.both(
            seen_script(original), seen_script(migrated), [root], name="case.py", cwd=ROOT, outputs=["seen.pkl"]
        )
        return tuple(pickle.loads(ran.outputs["seen.pkl"]) for ran in runs)

    def run(self, script: Path, args=(), **options) -> Ran:
        """``python script *args`` in a fresh process: :func:`run`."""
        return run(script, args, **options)

    def project_both(self, make, cli, script: str, args=()) -> tuple[Ran, Ran]:
        """``(original's run, migrated's run)`` of a project of several modules: ``make(folder)``
        writes it twice (``original/``, ``migrated/`` under the test's ``tmp_path``, the current
        folder), ``cli`` migrates the second (exit 0), and ``script`` of each runs with ``args``;
        each must exit with 0, else the test fails with its stderr."""
        for side in ("original", "migrated"):
            make(self._tmp_path / side)
        migrated = cli("migrate", "migrated")
        assert migrated.exit_code == 0, migrated.stderr
        runs = [run(self._tmp_path / side / script, args) for side in ("original", "migrated")]
        for side, ran in zip(("original", "migrated"), runs):
            assert ran.returncode == 0, f"the {side} {script} failed (exit {ran.returncode}):\n{ran.stderr[-2000:]}"
        return runs[0], runs[1]

    def dataset(self, make, *args):
        """``make``'s data, made once: :func:`dataset`."""
        return dataset(self._data_folder, make, *args)
