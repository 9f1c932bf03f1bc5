from .cli import run

run()  # main(), then a clean end of the process (see evalcore.cli.run)
