"""``python -m maka_client.cli``: the same as the ``maka`` console script."""

from maka_client.cli.app import main

raise SystemExit(main())
