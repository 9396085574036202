"""llmcost: analytical roofline cost model for LLM training, inference and test-time scaling.

The Python API (:mod:`llmcost.api`): ``llmcost.train``, ``infer``, ``infer_disaggregated``, ``tts``,
``collective``, ``search_train``, ``search_infer`` and ``search_disaggregated``, each
``(model, hardware, plan)``; ``llmcost.emit`` writes a costed plan as a framework's launch config. They are loaded on first
use, so ``import llmcost`` (and the CLI's start) loads neither numpy nor sympy.
"""

from importlib import import_module as _import_module

__version__ = "0.1.0"

__all__ = [
    "train",
    "emit",
    "infer",
    "infer_disaggregated",
    "tts",
    "collective",
    "search_train",
    "search_infer",
    "search_disaggregated",
]

# The subpackage llmcost.tts shares its name with the API function: import it now, so that its
# first import (which binds the subpackage as this module's attribute) is over, and drop the
# binding; ``llmcost.tts`` is then the function (module __getattr__), ``llmcost.tts.query`` is still
# reached by ``from llmcost.tts import query`` (imports read sys.modules, not this attribute).
_import_module("llmcost.tts")
del globals()["tts"]


def __getattr__(name: str) -> object:
    """The API functions, from :mod:`llmcost.api` on first use."""
    if name in __all__:
        return getattr(_import_module("llmcost.api"), name)
    raise AttributeError(f"module 'llmcost' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
