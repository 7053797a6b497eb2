"""Every command's --help ends with an example to copy, the example parses, and --version says the package's version."""

import argparse
import importlib.metadata
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import cad_lsp
from bench.runner import build_parser as bench_parser
from cad_lsp.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
SUBCOMMANDS = [name for name, sub in next(a for a in build_parser()._actions
                                          if isinstance(a, argparse._SubParsersAction)).choices.items()
               if sub.add_help]


def help_text(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv + ["--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def example_commands(text: str) -> list[str]:
    """The commands under the help's last heading, which must be 'example:' or 'examples:'.

    A line ending in a backslash goes on in the next (indented) line; a comment after '#' is dropped."""
    lines = text.rstrip("\n").splitlines()
    heading = max(i for i, line in enumerate(lines) if line in ("example:", "examples:"))
    commands: list[str] = []
    for line in lines[heading + 1:]:
        assert line.startswith("  "), f"not an indented example line: {line!r}"
        if commands and commands[-1].endswith("\\"):
            commands[-1] = commands[-1][:-1] + " " + line.strip()
        else:
            commands.append(line.strip())
    return commands


@pytest.mark.parametrize("command", [None] + SUBCOMMANDS + ["bench"])
def test_help_ends_with_an_example_of_that_command(command, capsys):
    argv = [] if command is None else [command]
    text = help_text(argv, capsys)
    examples = example_commands(text)
    assert examples, f"cad-lsp {command or ''} --help has no example"
    if command is not None:  # a subcommand's first example runs that subcommand
        assert shlex.split(examples[0].split("|")[-1], comments=True)[:2] == ["cad-lsp", command]


@pytest.mark.parametrize("command", [None] + SUBCOMMANDS + ["bench"])
def test_every_example_parses(command, capsys):
    """An example that names a removed option fails here, not on a user's screen."""
    text = help_text([] if command is None else [command], capsys)
    for example in example_commands(text):
        words = shlex.split(example.split("|")[-1], comments=True)
        assert words[0] == "cad-lsp"
        argv = words[1:]
        if argv[-1:] == ["--help"]:
            continue
        if argv[0] == "bench":
            bench_parser().parse_args(argv[1:])
        else:
            build_parser().parse_args(argv)
        for word in argv:  # the example files it names are in the checkout
            if word.startswith("examples/"):
                assert (ROOT / word).is_file(), word


def test_version_is_the_package_version():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cad_lsp.__version__ == pyproject == importlib.metadata.version("cad-lsp")
    run = subprocess.run([sys.executable, "-m", "cad_lsp", "--version"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"cad-lsp {pyproject}\n"
