"""Serve the sluice filter protocol around a peer written in Python, for
`sluice diff`: a template for a peer in a language other than JavaScript.

    python3 serve.py MODULE

MODULE is a path to a .py file (or an importable module name) that defines
FILTERS, a dict from a filter name of the protocol ("think", "json", ...)
to a factory taking the request's options, exactly as for
conformance/adapters/sluice_adapter.py, which does the protocol. A factory's
object may set `fields` to the fields the peer can express; only those are
compared. example_peer.py wraps Python's own json module this way.

Standard library only.
"""

import importlib
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "adapters"))

from sluice_adapter import serve  # noqa: E402


def load(spec):
    if spec.endswith(".py") or os.sep in spec:
        name = os.path.splitext(os.path.basename(spec))[0]
        found = importlib.util.spec_from_file_location(name, spec)
        if found is None:
            sys.exit("serve.py: cannot load %s" % spec)
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    module = load(sys.argv[1])
    filters = getattr(module, "FILTERS", None)
    if not isinstance(filters, dict):
        sys.exit("serve.py: %s defines no FILTERS dict" % sys.argv[1])
    serve(filters)


if __name__ == "__main__":
    main()
