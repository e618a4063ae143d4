"""What the Python mutants share: the protocol adapter on the path, and a main
that switches one bug on by name and serves the filter.

    sys.exit(mutant.main("think", BUGS, lambda options, bug: Think(options, bug)))
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adapters"))
from sluice_adapter import serve  # noqa: E402


def main(filter_name, bugs, make, extra=None):
    """python3 PROGRAM [BUG]: without BUG, the family's control. extra: other
    filters the program serves, by name (factories of the options alone)."""
    bug = sys.argv[1] if len(sys.argv) > 1 else None
    if bug is not None and bug not in bugs:
        sys.stderr.write("%s: no bug %r (one of: %s)\n"
                         % (os.path.basename(sys.argv[0]), bug, ", ".join(bugs)))
        return 2
    filters = dict(extra or {})
    filters[filter_name] = lambda options: make(options, bug)
    serve(filters)
    return 0
