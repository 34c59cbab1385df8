"""Reading a file an option names (EvalFile, BookFile, a table in
TablebasePath): a regular file of bounded size, or an error. An option may
name a FIFO, which would block open() until a writer comes, or a device such
as /dev/zero, which never ends: both are refused before anything is read."""
import io
import os
import stat


class NotAFileError(ValueError):
    """The path is not a regular file, or is larger than the reader takes."""


def open_regular(path: str | os.PathLike[str]) -> io.BufferedReader:
    """The regular file at `path`, open for binary reading. Opening does not
    block (O_NONBLOCK, which a regular file's reads ignore); OSError if it
    cannot be opened, NotAFileError if it is not a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAFileError("not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int, what: str = "this file") -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them:
    OSError if it cannot be read, NotAFileError if it is not a regular file
    or is larger than `limit` (checked before reading, and again while
    reading, for a file that grows)."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise NotAFileError(f"{size:,} bytes, more than {what} may have ({limit:,})")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise NotAFileError(f"more than {limit:,} bytes, more than {what} may have")
    return data
