"""data_file(): where the default model, labels and image are, as for the C
examples: downloads/<name> in a build tree, the file's own name in the
current folder, else the share/tfpi folder that `make install` or the
tfpi-tools package filled (or the data inside a wheel)."""
import os


def data_file(name):
    """The path of a default data file, e.g. "images/grace_hopper.jpg" or
    "models/mobilenet_v1_0.25_224/frozen_graph.pb" (the first candidate when
    none exists, so that the error names it)."""
    candidates = [os.path.join("downloads", name), os.path.basename(name)]
    try:
        from . import _installed
        here = os.path.dirname(os.path.abspath(__file__))
        candidates.append(os.path.normpath(os.path.join(here, _installed.DATADIR_FROM_PACKAGE, name)))
    except ImportError:
        pass
    return next((path for path in candidates if os.path.exists(path)), candidates[0])
