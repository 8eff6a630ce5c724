"""Writing an output file without ever damaging what is there.

A converter run replaces the output atomically: the text goes to a temporary file next to the
target, is flushed to disk (fsync), gets the target's permission bits, and is renamed over it, so a
reader sees the old file or the new one, never half of one.  What the output path names decides
where the text goes:

- a symbolic link (or a chain of them): the file it points to is replaced, the link stays;
- a character or block device, a FIFO or a socket (`/dev/null`, `/dev/stdout`, a named pipe): it is
  opened and written directly (renaming over a device would replace it with a regular file);
- `-`: standard output (the CLI's job).

The temporary file is removed on any failure, and on SIGINT and SIGTERM (their handlers turn the
signal into an exception while a write is in progress, when called from the main thread).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import threading

from .errors import ModelError


class Interrupted(BaseException):
    """SIGTERM (or SIGINT) arrived while an output was being written."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def signals_raise():
    """Turn SIGINT and SIGTERM into an `Interrupted` exception for the duration (main thread only).

    Python already raises KeyboardInterrupt for SIGINT; SIGTERM would kill the process without
    running any `finally`, leaving the temporary file behind.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Interrupted(signum)

    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ValueError, OSError):  # not allowed here (embedded interpreter): keep the default
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def write_text(path: str, text: str) -> None:
    """Write `text` (UTF-8) to `path` as described in the module docstring; ModelError on failure."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: str, data: bytes) -> None:
    """write_text for data that is no text (a picture)."""
    target = os.path.realpath(path)  # follows every symlink; a dangling one names the file to create
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise ModelError(f"cannot write the output: {e.strerror}", source=path) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise ModelError("cannot write the output: it is a directory", source=path)
    if st is not None and stat.S_ISREG(st.st_mode) and not os.access(target, os.W_OK):
        # the rename would replace it all the same (only the directory's permission counts): refuse as cp does
        raise ModelError("cannot write the output: the file is read-only", source=path)
    with signals_raise():
        if st is not None and not stat.S_ISREG(st.st_mode):
            _write_special(path, target, data)
        else:
            _replace_atomically(path, target, data, st)


def _write_special(path: str, target: str, data: bytes) -> None:
    """Devices, FIFOs, sockets: written in place (O_TRUNC is ignored by devices, needed by nothing else)."""
    try:
        fd = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ModelError(f"cannot write the output: {e.strerror}", source=path) from None
    try:
        _write_all(fd, data)
    except OSError as e:
        raise ModelError(f"cannot write the output: {e.strerror}", source=path) from None
    finally:
        os.close(fd)


def _temporary_file(directory: str, name: str) -> tuple[int, str]:
    """A new file `.<name>.<random>.tmp` in `directory`, mode 0600, never one that exists (what
    tempfile.mkstemp does, without the 5 ms of importing tempfile, random, shutil, bz2 and lzma)."""
    for _ in range(100):
        path = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _replace_atomically(path: str, target: str, data: bytes, st: os.stat_result | None) -> None:
    directory, name = os.path.split(target)
    tmp = None
    try:
        # no signal between creating the temporary file and knowing its name (it would be left behind);
        # one that arrives meanwhile is delivered when unblocked, with `tmp` set
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            fd, tmp = _temporary_file(directory or ".", name)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        try:
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
                with contextlib.suppress(OSError):  # only root may give the file away; keep the group if we can
                    os.fchown(fd, st.st_uid, st.st_gid)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(fd, 0o666 & ~umask)  # what open() would have created (mkstemp makes 0600)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
        _fsync_directory(directory or ".")
    except OSError as e:
        raise ModelError(f"cannot write the output: {e.strerror or e}", source=path) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable; not every file system lets a directory be opened or synced."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["Interrupted", "signals_raise", "write_text"]
