"""Argument checks shared by the package: Python's TypeError for values of the wrong type,
named after the argument, before anything reaches the C++ library."""
import os


def path(value, what):
    """A str or os.PathLike path as str."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{what}: expected a path (str or os.PathLike), got {type(value).__name__}")


def paths(value, what):
    """One path or a list of them, as a list of str."""
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    if isinstance(value, (list, tuple)) and value:
        return [path(v, f"{what}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"{what}: expected a path or a non-empty list of paths, got {type(value).__name__}")


def strings(value, what):
    """A list or tuple of str (a lone str is refused: it would be read as characters)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{what}: expected a list of str, got {type(value).__name__}")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise TypeError(f"{what}[{i}]: expected str, got {type(v).__name__}")
        utf8(v, f"{what}[{i}]")
    return list(value)


def utf8(text, what):
    """Refuses a str that UTF-8 cannot hold (lone surrogates, as os.fsdecode makes of bad bytes)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise UnicodeEncodeError(e.encoding, e.object, e.start, e.end,
                                     f"{what} is not valid text ({e.reason}: a lone surrogate, perhaps bytes "
                                     "that were not UTF-8)") from None


def sources(value, what):
    """A batch of sentences (str) or of token lists (lists of str); returns (list, is_text)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{what}: expected a list of sentences (str) or of token lists, got {type(value).__name__}")
    if not value:
        return [], True
    if isinstance(value[0], str):
        return strings(value, what), True
    for i, v in enumerate(value):
        if isinstance(v, str) or not isinstance(v, (list, tuple)):
            raise TypeError(f"{what}[{i}]: expected a token list (list of str) like {what}[0], got {type(v).__name__}")
        if not isinstance(value[0], (list, tuple)):
            raise TypeError(f"{what}[0]: expected str or a token list (list of str), got {type(value[0]).__name__}")
        strings(v, f"{what}[{i}]")
    return [list(v) for v in value], False


def integer(value, what, minimum=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what}: expected int, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


def number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what}: expected a number, got {type(value).__name__}")
    return float(value)


def flag(value, what):
    if not isinstance(value, bool):
        raise TypeError(f"{what}: expected bool, got {type(value).__name__}")
    return value
