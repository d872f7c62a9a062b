__version__ = "0.4.0.dev0"

from .configs import DPOConfig, ORPOConfig, ScriptArguments, SFTConfig
from .data import get_dataset
from .model_utils import get_model, get_tokenizer


__all__ = [
    "ScriptArguments",
    "DPOConfig",
    "SFTConfig",
    "ORPOConfig",
    "get_dataset",
    "get_tokenizer",
    "get_model",
]
