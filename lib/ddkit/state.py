"""State files: read small text files, write them whole and only when they change; never through a
link, never one another user made, only in a directory no other user can change."""

from ddkit import UsageError, decimal
from ddkit.native import os

PID_MAX = 4194304   # Linux's highest pid_max: a larger number in a file name is no writer of ours
# never follow a link at the last component; a FIFO planted there must not block the run
NOFOLLOW = sum(getattr(os, flag, 0) for flag in ('O_NOFOLLOW', 'O_NONBLOCK', 'O_CLOEXEC', 'O_BINARY'))


def untrusted(directory):
    """(why, fix) when another user could change directory or one above it, else None (foreign_dir)."""
    found = foreign_dir(directory)
    if found is None:
        return None
    path, st = found
    if st is None:
        return ('%s is relative to the current directory, which is gone' % path, 'give an absolute path')
    return ('%s (owner uid %d, mode %04o) can be changed by another user' % (
        path, st.st_uid, st.st_mode & 0o7777), 'chown root %s; chmod go-w %s' % (path, path))


def refuse_foreign(what, path, st):
    """A UsageError when another user could change this config or UCI file (st: its fstat): whoever
    can, steers a root run (which URL gets the credentials, which state_dir). The fix makes it the
    owner's alone (600): it holds secrets, so readable by others is warned of too."""
    if os.name == 'posix' and (st.st_uid not in (0, os.geteuid()) or st.st_mode & 0o022):
        raise UsageError('%s %s (owner uid %d, mode %04o) can be changed by another user: refused; '
                         'fix: chown root %s; chmod 600 %s' % (what, path, st.st_uid, st.st_mode & 0o7777,
                                                                path, path))


def foreign_dir(directory, links=None):
    """(path, its lstat) of the first of directory and the ones above it that another user could
    change, else None: each must be owned by this user or root and not writable by group or others
    unless sticky (OpenSSH's StrictModes). A link is judged as itself and by where it leads, and
    every directory there; 40 links in all are followed (as many as the kernel follows in a path:
    a loop leads nowhere, and the use of the path fails). Self-contained, of posix's functions only:
    tools/standalone.py copies it into the single file's start and the installed stub, which run
    before os is imported (ddkit.native), compile it on every run, and need only a yes or no (the
    texts stay in untrusted)."""
    if not hasattr(os, 'geteuid'):   # no user ids (Windows): nothing to judge
        return None
    links = [0] if links is None else links   # the links followed so far, shared by the calls it makes
    try:
        path = (directory if directory.startswith('/') else os.getcwd() + '/' + directory).rstrip('/') or '/'
    except OSError:   # the current directory is gone: a relative path leads nowhere known
        return directory, None
    while True:
        try:
            st = os.lstat(path)
            if st.st_mode & 0o170000 == 0o120000 and links[0] < 40:
                links[0] += 1
                target = os.readlink(path)
                found = foreign_dir(target if target.startswith('/') else path[:path.rfind('/') + 1] + target, links)
                if found:
                    return found
        except OSError:
            st = None  # not made yet (or not a directory, which the write reports): the ones above count
        if st and st.st_mode & 0o170000 == 0o040000 and (
                st.st_uid not in (0, os.geteuid()) or st.st_mode & 0o022 and not st.st_mode & 0o1000):
            return path, st
        if path == '/':
            return None
        path = path[:path.rfind('/')] or '/'


def open_file(path, flags, mode=0o600, keep=None, make=False, stat=False):
    """os.open of a regular file of this user or root, never through a link; a file it creates has
    exactly `mode` (whatever the umask), an existing one loses the bits not in `keep` (default mode);
    make: the directories up to it are made (make_dir) when missing; stat: (fd, its fstat)."""
    made = False
    try:
        try:  # the file that is there: two system calls, the common case
            if flags & os.O_EXCL:
                raise FileNotFoundError(path)
            fd = os.open(path, flags & ~os.O_CREAT | NOFOLLOW)
        except FileNotFoundError:
            if not flags & os.O_CREAT:
                raise
            if make:   # asked only now: a run's files are there, their directory with them
                make_dir(os.path.dirname(os.path.abspath(path)))
            try:  # O_EXCL: only then is it known that this call made the file
                fd, made = os.open(path, flags | os.O_EXCL | NOFOLLOW, mode), True
            except FileExistsError:
                if flags & os.O_EXCL:
                    raise
                fd = os.open(path, flags & ~os.O_CREAT | NOFOLLOW)   # another run made it meanwhile
    except OSError:
        if os.path.islink(path):  # said plainly: ELOOP alone reads as a loop
            import errno  # only here: a cron run with nothing wrong loads no more modules
            raise OSError(errno.ELOOP, 'it is a symbolic link, which is never followed')
        raise
    try:
        st = os.fstat(fd)
        # root's file or this user's: who runs is asked only of a file root does not own
        if st.st_mode & 0o170000 != 0o100000 or os.name == 'posix' and (
                st.st_uid and st.st_uid != os.geteuid() or st.st_nlink > 1 and flags & (os.O_WRONLY | os.O_RDWR)):
            import errno
            raise OSError(errno.EPERM, 'not a regular file of root or this user')
        keep = mode if keep is None else keep
        if os.name == 'posix' and (made or st.st_mode & 0o7777 & ~keep):
            _chmod(fd, mode if made else st.st_mode & keep)  # the descriptor: never a path
    except BaseException:
        os.close(fd)
        raise
    return (fd, st) if stat else fd


def make_dir(directory):
    """Make directory and the missing ones above it, each 0700 whatever the umask."""
    if not os.path.isdir(directory):
        make_dir(os.path.dirname(os.path.abspath(directory)))
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            return  # another run made it first
        if os.name == 'posix':
            fd = os.open(directory, os.O_RDONLY | NOFOLLOW)
            _chmod(fd, 0o700)
            os.close(fd)


def read_lines(path, limit=4096, private=False):
    """Return the file's non-empty stripped lines (of its first `limit` bytes), or [] when it is
    absent or unreadable; private: a file holding a token is made readable by its owner only."""
    return read_dated(path, limit, private)[0]


def read_dated(path, limit=4096, private=False):
    """(read_lines(path), the file's modification time), or ([], None) when it is absent or
    unreadable: the time comes from the fstat every open makes."""
    try:
        fd, st = open_file(path, os.O_RDONLY, keep=0o600 if private else 0o7777, stat=True)
    except OSError:
        return [], None
    try:
        data = os.read(fd, limit)   # a regular file gives all it has up to limit at once
    except OSError:
        return [], None
    finally:
        os.close(fd)
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        return [], None  # garbage is treated as absent and rebuilt
    return [line.strip() for line in text.split('\n') if line.strip()], st.st_mtime  # strip() takes a '\r' too


def write_if_changed(path, lines, private=False, mode=None, touch=False):
    """Write lines to path atomically (temp file, fsync, rename) unless it already holds them.

    Returns True when the file was written. Router flash wears, so an unchanged file is not
    rewritten; touch: its modification time is set to now instead (what it says was confirmed).
    The file gets mode (default 0600 when private, else 0644), whatever the umask.
    """
    mode = mode if mode is not None else 0o600 if private else 0o644
    data = ''.join(str(line) + '\n' for line in lines).encode('utf-8')
    try:
        with os.fdopen(open_file(path, os.O_RDONLY, mode), 'rb') as f:  # drops looser permission bits
            if f.read(len(data) + 1) == data:
                if touch:
                    os.utime(f.fileno())   # the descriptor: never a path
                return False
    except OSError:
        pass
    directory = os.path.dirname(os.path.abspath(path))
    make_dir(directory)
    # an unpredictable name, created exclusively: a file another user made in advance gets nothing
    tmp = '%s.tmp%d.%s' % (path, os.getpid(), os.urandom(6).hex())
    fd = open_file(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_dir(directory)
    _remove_orphans(path)
    return True


def remove(path):
    """Remove a state file if present: None when it is gone, else why it could not be removed (a
    read-only or foreign directory) for the caller to say; never raises."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        return e.strerror or str(e)
    return None


def _remove_orphans(path):
    """Temporary files (`<file>.tmp<pid>.<random>`, or the older `<file>.tmp<pid>`) of writers killed
    mid-write (power cut, SIGKILL) go, so they never pile up; unlink() never follows a link."""
    if os.name != 'posix':
        return  # os.kill(pid, 0) would terminate the process on Windows
    directory, prefix = os.path.split(os.path.abspath(path))
    prefix += '.tmp'
    found = []
    try:
        for name in os.listdir(directory):
            pid, _, rest = name[len(prefix):].partition('.')
            pid = decimal(pid) if name.startswith(prefix) and len(pid) <= 7 else None
            if pid and pid <= PID_MAX and (not rest or len(rest) == 12):
                found.append((name, pid))
    except OSError:
        return
    for name, pid in found:
        try:
            os.kill(pid, 0)
            continue  # its writer is still running
        except ProcessLookupError:
            pass
        except OSError:
            continue
        try:
            os.unlink(os.path.join(directory, name))  # a trusted directory: only this user's or root's
        except OSError:
            pass


def _chmod(fd, mode):
    # a file copied in or made by hand loses what it must not allow; a root-owned one may refuse
    try:
        os.fchmod(fd, mode)
    except OSError:
        pass


def _sync_dir(directory):
    # the rename itself must reach the disk before a power cut, or the old name may come back
    if hasattr(os, 'O_DIRECTORY'):
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)
