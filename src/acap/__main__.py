"""``python -m acap``: the same as the ``acap`` command."""

from acap._entry import main

if __name__ == "__main__":
    main()
