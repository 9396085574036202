"""``llmcost search ...``: the group of plan-space sweeps.

Its subcommands live in :mod:`llmcost.cli.search_tts_cmd` (``search tts``) and
:mod:`llmcost.cli.search_train_infer_cmd` (``search train``, ``search infer``); each adds its
commands to :data:`search_app` in its ``register``.
"""

from __future__ import annotations

import typer

search_app = typer.Typer(
    name="search",
    help="Search plan spaces within a budget.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    """Add the ``search`` group to the CLI."""
    app.add_typer(search_app, name="search")
