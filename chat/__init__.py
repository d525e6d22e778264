"""slowspades' conversation layer (pure): text -> intent, game state -> messages, in five languages.

(Work in progress: the full API documentation lands with render/prompt.)
"""

from .parse import Intent, parse

__all__ = ["Intent", "parse"]
