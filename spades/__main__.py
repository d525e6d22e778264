"""``python -m spades arena ...`` / ``python -m spades replay FILE``: the engine's command line."""

from .cli import main

if __name__ == "__main__":
    main()
