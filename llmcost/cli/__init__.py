"""The ``llmcost`` command line: a thin typer layer over the library.

User mistakes raise :class:`llmcost.errors.UserError`; :func:`main` prints them as one
line on stderr and exits with code 2, never with a traceback.
"""

import copy
import importlib
import sys
from typing import Annotated

import typer

from llmcost import __version__
from llmcost.cli.coercion import install
from llmcost.errors import EXIT_USER_ERROR, UserError

install()  # option values coerced without importing pydantic


def _app() -> typer.Typer:
    """An ``llmcost`` app with the root options and no command yet."""
    new = typer.Typer(
        name="llmcost",
        help="Analytical roofline cost model for LLM training, inference and test-time scaling.",
        no_args_is_help=True,
        add_completion=True,  # --install-completion, --show-completion (ids: llmcost.cli.options)
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    new.callback()(_root)
    return new


def _version(value: bool) -> None:
    if value:
        print(f"llmcost {__version__}")
        raise typer.Exit()


def _root(
    catalog: Annotated[
        list[str] | None,
        typer.Option(
            "--catalog", metavar="DIR", help="Extra catalog directory (repeatable; also $LLMCOST_CATALOG)."
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Analytical roofline cost model for LLM training, inference and test-time scaling."""
    from llmcost.catalog import set_user_dirs

    set_user_dirs(catalog or [])


# The module whose ``register`` adds each command or group, for :func:`_narrow` (not ``search``,
# whose subcommands register on one shared group; a name missing here gets the whole app).
_MODULES = {
    "hw": "catalog_cmd",
    "model": "catalog_cmd",
    "collective": "collective_cmd",
    "explain": "explain_cmd",
    "validate": "validate_cmd",
    "calibrate": "calibrate_cmd",
    "infer": "infer_cmd",
    "train": "train_cmd",
    "budget": "budget_cmd",
    "tts": "tts_cmd",
    "fit": "fit_cmd",
}
_whole: list[typer.Typer] = []


def _register() -> typer.Typer:
    """The app with every command and group (built once); modules import their heavy
    dependencies inside commands."""
    if _whole:
        return _whole[0]
    from llmcost.cli import (
        budget_cmd,
        calibrate_cmd,
        catalog_cmd,
        collective_cmd,
        explain_cmd,
        fit_cmd,
        infer_cmd,
        search_cmd,
        search_train_infer_cmd,
        search_tts_cmd,
        train_cmd,
        tts_cmd,
        validate_cmd,
    )

    whole = _app()
    for mod in (
        catalog_cmd,
        collective_cmd,
        explain_cmd,
        validate_cmd,
        calibrate_cmd,
        infer_cmd,
        train_cmd,
        budget_cmd,
        tts_cmd,
        fit_cmd,
    ):
        mod.register(whole)
    search_cmd.register(whole)
    # `search tts`, then `search train` and `search infer`, in the order `search --help` lists them
    search_tts_cmd.register(search_cmd.search_app)
    search_train_infer_cmd.register(search_cmd.search_app)
    _whole.append(whole)
    return whole


def __getattr__(name: str) -> object:
    """``app``: the whole CLI, registered on first use."""
    if name == "app":
        return _register()
    raise AttributeError(f"module 'llmcost.cli' has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``llmcost`` script and ``python -m llmcost``.

    Our own :class:`UserError` and typer/click usage errors (a missing argument, an unknown
    option, a value of the wrong type) alike print one line on stderr naming what is wrong and
    where the usage is, and exit with code 2.
    """
    from typer._click import exceptions as click_errors

    try:
        args = argv if argv is not None else sys.argv[1:]
        code = _narrow(args)(args=args, prog_name="llmcost", standalone_mode=False)
    except UserError as e:
        _fail(str(e))
    except click_errors.NoArgsIsHelpError as e:  # a bare group: its help, as before
        e.show()
        sys.exit(e.exit_code)
    except click_errors.UsageError as e:
        where = f"; see '{e.ctx.command_path} --help'" if e.ctx is not None else ""
        _fail(UserError(e.format_message().rstrip(".") + where).args[0])
    except click_errors.ClickException as e:
        _fail(UserError(e.format_message()).args[0], e.exit_code)
    except BrokenPipeError:
        sys.exit(0)
    except typer.Abort:
        _fail("aborted", 1)
    except KeyboardInterrupt:
        sys.exit(130)
    # as in standalone mode: exit 0, or typer.Exit(code)'s code (returned in non-standalone mode)
    sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


def _narrow(args: list[str]) -> typer.Typer:
    """The app with only the command (or group) ``args`` names, when they name one after no root
    option but ``--catalog``: typer builds every registered command's parameters from its
    signature before dispatching, and each command module costs its import, a cold start need not
    pay for the others. Anything else (help, a bare ``llmcost``, an unknown name and its
    suggestions) gets the whole app."""
    it = iter(args)
    name = None
    for a in it:
        if a == "--catalog":
            next(it, None)
        elif not a.startswith("--catalog="):
            name = None if a.startswith("-") else a
            break
    if name in _MODULES:
        narrow = _app()
        importlib.import_module(f"llmcost.cli.{_MODULES[name]}").register(narrow)
    else:
        narrow = copy.copy(_register())
    commands = [c for c in narrow.registered_commands if c.name == name]
    groups = [g for g in narrow.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return _register()
    narrow.registered_commands, narrow.registered_groups = commands, groups
    return narrow


def _fail(message: str, code: int = EXIT_USER_ERROR) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(code)
