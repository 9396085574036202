"""Model shapes: the normalized spec (spec), per-model_type config readers (readers), parameter counts (params), config import (importer)."""
