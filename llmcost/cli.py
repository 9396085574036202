"""Placeholder CLI (replaced in the foundation commit)."""


def main() -> None:
    print("llmcost")
