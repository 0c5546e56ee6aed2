"""``python -m gpuhub.cli``: the ``gpuhub`` command."""

from gpuhub.cli.commands import main

main(own_process=True)
