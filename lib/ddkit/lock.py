"""One run per record at a time: fcntl.flock where it exists, an exclusive lock file elsewhere."""

import time

from ddkit import Failure, state
from ddkit.native import os

WAIT = 5.0          # seconds a second run waits for the first before giving up
STALE = 600         # a lock file (no flock) older than this was left by a crashed run


def waited(environ, wait):
    """Seconds a second run waits for the first: wait, or less when DDKIT_TEST_LOCK_WAIT=<seconds>
    asks (a test of a run that gives up need not wait out a router's five seconds); it never makes
    a wait longer, and a router's runs never set it."""
    value = environ.get('DDKIT_TEST_LOCK_WAIT', '')
    return min(float(value), wait) if value.replace('.', '', 1).isdigit() else wait


class Lock:
    """Context manager holding the lock file `path` for the duration of a run."""

    def __init__(self, path, wait=WAIT):
        self.path, self.wait, self.fd = path, wait, None

    def __enter__(self):
        try:
            taken = self._try()
        except OSError as e:  # a read-only or missing state directory: say so in one line
            raise Failure('cannot create lock file %s: %s; state_dir must be a writable directory'
                          % (self.path, e.strerror or e), step='lock the record', kind='state',
                          fix='state_dir must be a writable directory')
        if not taken:
            self._wait()
        return self

    def _wait(self):
        # only when another run holds the lock: reading a clock costs a run that needs none memory
        deadline = time.monotonic() + waited(os.environ, self.wait)
        while not self._try():
            if time.monotonic() >= deadline:
                raise Failure('another run for this record is still going (lock %s); try again later'
                              % self.path, step='lock the record', kind='busy', fix='try again later')
            time.sleep(0.1)

    def _try(self):
        try:
            import fcntl
        except ImportError:
            return self._try_file()
        if self.fd is None:  # never through a link: root's run must not create or touch another file
            self.fd = state.open_file(self.path, os.O_RDWR | os.O_CREAT, 0o600, make=True)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def _try_file(self):
        try:
            self.fd = state.open_file(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, make=True)
            return True
        except FileExistsError:
            try:
                if time.time() - os.lstat(self.path).st_mtime > STALE:
                    os.unlink(self.path)
            except OSError:
                pass
            return False

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
            try:
                import fcntl  # noqa: F401  (with flock the file stays: removing it would race)
            except ImportError:
                os.unlink(self.path)
