"""``python -m acap``: the same as the ``acap`` command."""

from acap.cli import main

if __name__ == "__main__":
    main()
