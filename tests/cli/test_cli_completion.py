"""Shell completion (bash, zsh, fish), and options read without Typer's pydantic adapters.

Completion is driven as the shells drive it: click's ``_TAPE_COMPLETE=complete_<shell>``
with ``COMP_WORDS``/``COMP_CWORD`` (bash) or Typer's ``_TYPER_COMPLETE_ARGS`` (zsh, fish).
"""
from __future__ import annotations

import pytest

from cli_helpers import tape_cli, tape_process
from tape.cli import app as A

# lets ``--show-completion SHELL`` take the shell instead of detecting the parent process's
SHELL_BY_NAME = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o default -F _tape_completion"),
                                           ("zsh", "#compdef tape"),
                                           ("fish", "complete --command tape")])
def test_show_completion_prints_the_script(shell, marker):
    done = tape_process("--show-completion", shell, env=SHELL_BY_NAME)
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout and "_TAPE_COMPLETE=complete_" + shell in done.stdout


def test_help_offers_completion():
    out = " ".join(tape_cli("--help").stdout.split())
    assert "--install-completion" in out and "--show-completion" in out


def test_bash_completes_a_command_name():
    done = tape_process(env={"_TAPE_COMPLETE": "complete_bash", "COMP_WORDS": "tape gr",
                             "COMP_CWORD": "1"})
    assert done.returncode == 0 and done.stdout.split() == ["grad", "grade"]


def test_bash_completes_an_option():
    done = tape_process(env={"_TAPE_COMPLETE": "complete_bash",
                             "COMP_WORDS": "tape grad --fo", "COMP_CWORD": "2"})
    assert done.stdout.split() == ["--format"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_complete_a_command_name(shell):
    env = {"_TAPE_COMPLETE": "complete_" + shell, "_TYPER_COMPLETE_ARGS": "tape gr",
           "_TYPER_COMPLETE_FISH_ACTION": "get-args"}
    done = tape_process(env=env)
    assert done.returncode == 0
    assert "grad" in done.stdout and "hessian" not in done.stdout and "jacobian" not in done.stdout


def test_every_option_type_is_read_by_plain_values():
    for name in A.LazyCommands():
        for param in A.LazyCommands()[name].params:
            assert A.PlainValues.handles(param.type_descriptor.annotation), (name, param.name)


@pytest.mark.parametrize("args, value", [
    (["--order", "3"], 3), (["-f", "JSON"], "json"), (["--rtol", "1e-3"], 1e-3),
    (["--at", "1", "--at", "2"], ["1", "2"])])
def test_plain_values_convert_like_typer(args, value):
    command = A.LazyCommands()["grad"]
    ctx = command.make_context("grad", ["x"] + args)
    name = {"--order": "order", "-f": "fmt", "--rtol": "rtol", "--at": "at"}[args[0]]
    got = ctx.params[name]
    assert (got.value if name == "fmt" else got) == value
