"""data_file(): where the default model, labels and image are, as for the C
examples: downloads/<name> in a build tree, else the share/tfpi folder that
`make install` or the tfpi-tools package filled."""
import os


def data_file(name):
    """The path of a default data file, e.g. "images/grace_hopper.jpg" or
    "models/mobilenet_v1_0.25_224/frozen_graph.pb"."""
    local = os.path.join("downloads", name)
    if os.path.exists(local):
        return local
    try:
        from . import _installed
    except ImportError:
        return local
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _installed.DATADIR_FROM_PACKAGE, name))
