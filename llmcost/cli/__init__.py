"""The ``llmcost`` command line: a thin typer layer over the library.

User mistakes raise :class:`llmcost.errors.UserError`; :func:`main` prints them as one
line on stderr and exits with code 2, never with a traceback.
"""

from __future__ import annotations

import copy
import sys
from typing import Annotated

import typer

from llmcost import __version__
from llmcost.cli.coercion import install
from llmcost.errors import EXIT_USER_ERROR, UserError

install()  # option values coerced without importing pydantic

app = typer.Typer(
    name="llmcost",
    help="Analytical roofline cost model for LLM training, inference and test-time scaling.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"llmcost {__version__}")
        raise typer.Exit()


@app.callback()
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


def _register() -> None:
    """Attach every command group; modules import their heavy dependencies inside commands."""
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
        mod.register(app)
    search_cmd.register(app)
    # `search tts`, then `search train` and `search infer`, in the order `search --help` lists them
    search_tts_cmd.register(search_cmd.search_app)
    search_train_infer_cmd.register(search_cmd.search_app)


_register()


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
    """:data:`app` with only the command (or group) ``args`` names, when they name one after no
    root option but ``--catalog``: typer builds every registered command's parameters from its
    signature before dispatching, a cost a cold start need not pay for the others. Anything else
    (help, a bare ``llmcost``, an unknown name and its suggestions) goes to the whole app."""
    it = iter(args)
    name = None
    for a in it:
        if a == "--catalog":
            next(it, None)
        elif not a.startswith("--catalog="):
            name = None if a.startswith("-") else a
            break
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return app
    narrow = copy.copy(app)
    narrow.registered_commands, narrow.registered_groups = commands, groups
    return narrow


def _fail(message: str, code: int = EXIT_USER_ERROR) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(code)
