"""tco: lifecycle TCO of an AI model, dedicated (BRL) vs public cloud (USD)."""

__version__ = "0.1.0"
