"""Exceptions: every failing libaxl call raises an AxlError (or a subclass)."""

from __future__ import annotations

#: libaxl's codes (include/axl/error.h) by name.
CODES: dict[str, int] = {
    "EINVAL": -1, "ENOMEM": -2, "ENOENT": -3, "EIO": -4, "EPARSE": -5, "ERANGE": -6,
    "EUNKNOWN": -7, "ENOTSUP": -8, "EPERM": -9, "EVERSION": -10, "ETOOBIG": -11,
    "EBACKEND": -12, "ENOTSYS": -13, "EBUSY": -14, "ENOSPC": -15, "ETIMEDOUT": -16,
    "EDEVLOST": -17,
}
_NAMES = {v: k for k, v in CODES.items()}


class AxlError(Exception):
    """A libaxl failure.

    Attributes: ``code`` (the negative AXL_E* value), ``name`` ("EINVAL") and
    ``message`` (axl_error_last(): what failed and why).
    """

    code: int
    name: str
    message: str

    def __init__(self, code: int, message: str, name: str | None = None) -> None:
        self.code = code
        self.name = name or _NAMES.get(code, "EUNKNOWNCODE")
        self.message = message
        super().__init__("%s: %s" % (self.name, message))

    def __reduce__(self):  # keep pickling working with the 2-3 argument constructor
        return (type(self), (self.code, self.message, self.name))


class InvalidArgumentError(AxlError, ValueError):
    """EINVAL: a bad argument, an unknown handle, a closed or freed object."""


class OutOfMemoryError(AxlError, MemoryError):
    """ENOMEM."""


class NotFoundError(AxlError, LookupError):
    """ENOENT: no such device, model, profile or file."""


class ParseError(AxlError, ValueError):
    """EPARSE: malformed input."""


class OutOfRangeError(AxlError, ValueError):
    """ERANGE: a value out of range."""


class UnknownError(AxlError):
    """EUNKNOWN: the value is not known."""


class NotSupportedError(AxlError):
    """ENOTSUP: the device or vendor cannot do it."""


class PermissionDeniedError(AxlError, PermissionError):
    """EPERM: needs privileges."""


class NotThisSystemError(AxlError):
    """ENOTSYS: a re-rooted context (another node's tree) cannot do it."""


class BusyError(AxlError):
    """EBUSY: the device is in use."""


class NoSpaceError(AxlError):
    """ENOSPC: no room left (for a partition profile, say)."""


class AxlTimeoutError(AxlError, TimeoutError):
    """ETIMEDOUT."""


class DeviceLostError(AxlError):
    """EDEVLOST: the device is gone or failing."""


class ClosedError(InvalidArgumentError):
    """The object (inventory, compute context, buffer, ...) was closed or freed."""

    def __init__(self, what: str) -> None:
        super().__init__(-1, "%s is closed" % what, "EINVAL")

    def __reduce__(self):
        return (type(self), (self.message[: -len(" is closed")],))


ERRORS: dict[int, type[AxlError]] = {
    -1: InvalidArgumentError, -2: OutOfMemoryError, -3: NotFoundError, -5: ParseError,
    -6: OutOfRangeError, -7: UnknownError, -8: NotSupportedError, -9: PermissionDeniedError,
    -13: NotThisSystemError, -14: BusyError, -15: NoSpaceError, -16: AxlTimeoutError,
    -17: DeviceLostError,
}


def error_from_code(code: int, message: str, name: str | None = None) -> AxlError:
    """The exception for a libaxl code (AxlError itself for codes without a subclass)."""
    return ERRORS.get(code, AxlError)(code, message, name)
