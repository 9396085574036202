"""Model shapes: the normalized spec (spec), reading it from a config (config: from_config over the per-model_type readers), parameter counts (params), config import (importer)."""
