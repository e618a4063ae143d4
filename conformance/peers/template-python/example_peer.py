"""An example peer for serve.py: Python's json module as a json filter.

It repairs nothing, so it agrees with sluice on valid documents only; it
reports the parsed value alone, so only "value" (and whether there was an
error) is compared.
"""

import json

from sluice_adapter import FilterError, Unsupported


class StrictJson:
    fields = ("value",)

    def __init__(self, options):
        if options:
            raise Unsupported("no options")
        self.parts = []

    def feed(self, text):
        self.parts.append(text)
        return {}

    def finish(self):
        try:
            return {"value": json.loads("".join(self.parts))}
        except ValueError as e:
            raise FilterError("invalid_json", str(e))


FILTERS = {"json": StrictJson}
