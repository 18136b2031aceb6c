"""``python -m maka_runtime_client.cli``: the same as the ``maka`` console script."""

from maka_runtime_client.cli.app import main

raise SystemExit(main())
