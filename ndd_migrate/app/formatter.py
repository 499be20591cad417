"""The formatter ``migrate`` and ``check --fix`` pass rewritten files through (``--format``)."""

from __future__ import annotations


def run(summary, conf, console) -> None:
    """With ``format`` on (``--format``, or the key), pass each rewritten ``.py`` file's new text
    through the configured formatter (a command reading code on stdin and writing it on stdout,
    as libcst's codemod runs one; run in the file's directory, ``{path}`` in it replaced by the
    file's path). A formatter that fails, is missing, or returns code that does not compile
    leaves the text unformatted, with a warning on ``console()`` (a rich console, made when
    needed): the migration itself is not lost."""
    import os
    import subprocess

    from rich.markup import escape

    err = None
    for result in summary.changed:
        settings = conf.for_path(result.path)
        if not settings.format or not result.path.endswith(".py"):
            continue
        command = [arg.replace("{path}", result.path) for arg in settings.formatter]
        problem = None
        try:
            done = subprocess.run(
                command,
                input=result.new_source.encode("utf-8"),
                capture_output=True,
                timeout=120,
                cwd=os.path.dirname(os.path.abspath(result.path)),
            )
            formatted = done.stdout.decode("utf-8")
            if done.returncode != 0:
                problem = f"exited with status {done.returncode}: {done.stderr.decode(errors='replace').strip()[:200]}"
            else:
                compile(formatted, result.path, "exec", dont_inherit=True)
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
            problem = str(exc)
        if problem is None:
            result.new_source = formatted
            continue
        err = err or console()
        err.print(
            f"[yellow]warning[/] {escape(result.path)}: formatter `{escape(' '.join(command))}` failed ({escape(problem)}); "
            "written unformatted",
            soft_wrap=True,
        )
