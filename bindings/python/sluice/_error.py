"""sluice.Error, in a module of its own so that the C extension can import it."""


class Error(Exception):
    """A filter failed: bad options, a size limit, JSON that cannot be salvaged, ...

    status: the status name of the filter protocol ("bad_option", "limit",
    "no_json", ...); offset: the byte of the input stream where it happened;
    message: what went wrong.
    """

    def __init__(self, message, status="invalid_argument", offset=0):
        super().__init__(message)
        self.message = message
        self.status = status
        self.offset = offset

    def __str__(self):
        return "%s (%s at byte %d)" % (self.message, self.status, self.offset)
