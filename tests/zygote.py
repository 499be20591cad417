"""A process that has imported DALI, PyTorch and numpy once and forks a fresh process for each program
the tests run (tests/harness.py starts one per pytest process and talks to it).

A fresh interpreter spends 2 to 5 s importing ``nvidia.dali``, its dynamic mode and its PyTorch plugin;
for most programs of the suite that is most of the run. A child forked from this idle process (it has
only imported modules: no pipeline, no thread of DALI's) starts with them imported and is otherwise
the process ``python script.py`` would be: its own session and process group, its own ``__main__``,
``sys.argv``, ``sys.path``, environment, working directory and standard streams, and the ordinary
interpreter exit (``atexit``, DALI's threads, flushed streams) when the program ends.

    python tests/zygote.py SOCKET

It listens on the Unix socket ``SOCKET`` and writes ``ready`` to its standard output once it can
serve; it exits when its standard input is closed. Each request is one message (JSON, see
:func:`_start`) carrying the child's stdin, stdout and stderr as file descriptors; the answer is
``pid N`` once the child runs, then ``status S`` (its ``os.waitpid`` status) when it has ended.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import signal
import socket
import sys

# What the programs of the suite import; each is imported here once (the `verify` worker for the
# verify runs, which start `python -m ndd_migrate.verify.worker`).
PRELOADED = [
    "numpy",
    "PIL.Image",
    "torch",
    "nvidia.dali",
    "nvidia.dali.fn",
    "nvidia.dali.types",
    "nvidia.dali.experimental.dynamic",
    "nvidia.dali.plugin.pytorch",
    "ndd_migrate.verify.worker",
]


def _serve(listener: socket.socket) -> dict:
    """Answer requests until standard input closes (then exit); return only in a forked child, with
    the request it is to run."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the intermediate processes reap themselves
    events = selectors.DefaultSelector()
    events.register(listener, selectors.EVENT_READ)
    events.register(sys.stdin, selectors.EVENT_READ)
    while True:
        for key, _ in events.select():
            if key.fileobj is sys.stdin:
                raise SystemExit(0)
            connection, _ = listener.accept()
            if os.fork() == 0:
                events.close()
                listener.close()
                return _start(connection)
            connection.close()


def _start(connection: socket.socket) -> dict:
    """In an intermediate process: fork the child that runs the request, answer its pid and then its
    end. Returns in the child only; the intermediate process exits here."""
    message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    request = json.loads(message)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        os.setsid()  # a group of its own, as `start_new_session=True`: a timeout kills all of it
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        connection.close()
        return request
    for fd in fds:
        os.close(fd)
    connection.sendall(f"pid {pid}\n".encode())
    _, status = os.waitpid(pid, 0)
    connection.sendall(f"status {status}\n".encode())
    os._exit(0)


def _run(request: dict, zygote_path: list[str], zygote_pythonpath: list[str]) -> None:
    """Become the program ``request`` names, as the interpreter would start it:

    ``{"kind": "path" | "module" | "code", "target": script path, module or code, "args": [...],
    "cwd": ..., "env": {...}, "faulthandler": bool (``-X faulthandler``)}``."""
    import faulthandler
    import importlib.machinery
    import runpy
    import types

    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    kind, target, args = request["kind"], request["target"], request["args"]
    first = {"path": os.path.dirname(os.path.abspath(target)), "module": os.getcwd(), "code": ""}[kind]
    given = [os.path.abspath(p) for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [first, *given, *(p for p in zygote_path if p not in zygote_pythonpath)]
    sys.argv[:] = [{"path": target, "module": "-m", "code": "-c"}[kind], *args]
    if request["faulthandler"]:
        faulthandler.enable()
    sys.modules["numpy"].random.seed()  # numpy's global seed is drawn per process, not the zygote's
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    if kind == "module":
        runpy._run_module_as_main(target, alter_argv=True)  # what `python -m` itself calls
        return
    if kind == "path":
        with open(target, "rb") as f:
            code = compile(f.read(), target, "exec")
        main.__file__ = target
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", target)
    else:
        code = compile(target, "<string>", "exec")
    try:
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as error:  # printed as the interpreter prints it: the program's frames only
        error = error.with_traceback(error.__traceback__.tb_next)
        sys.excepthook(type(error), error, error.__traceback__)
        raise SystemExit(1) from None


def main(argv: list[str]) -> None:
    zygote_path = list(sys.path[1:])  # without this file's folder
    zygote_pythonpath = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for name in PRELOADED:
        __import__(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(argv[0])
    listener.listen(16)
    # What it imported is never collected in a child, so a child's exit does not walk (and copy) those
    # objects: 0.6 s instead of 2 s at the end of each program on a loaded 2-core machine.
    gc.freeze()
    print("ready", flush=True)
    request = _serve(listener)
    _run(request, zygote_path, zygote_pythonpath)


if __name__ == "__main__":
    main(sys.argv[1:])
