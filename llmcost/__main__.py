"""``python -m llmcost``."""

from llmcost.cli import main

main()
