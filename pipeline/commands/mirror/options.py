"""mirror's options (no Blender): it has none of its own."""


def add_arguments(parser):
    """mirror takes only the options every command shares."""
