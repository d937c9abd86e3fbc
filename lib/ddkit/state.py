"""State files: read small text files, write them whole and only when they change."""

import os


def read_lines(path, limit=4096, private=False):
    """Return the file's non-empty stripped lines (of its first `limit` bytes), or [] when it is
    absent or unreadable; private: a file holding a token is made readable by its owner only."""
    try:
        with open(path, 'rb') as f:
            data = f.read(limit)
            if private and os.name == 'posix' and os.fstat(f.fileno()).st_mode & 0o077:
                _tighten(f.fileno())
    except OSError:
        return []
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        return []  # garbage is treated as absent and rebuilt
    return [line.strip() for line in text.split('\n') if line.strip()]  # strip() takes a '\r' too


def write_if_changed(path, lines, private=False):
    """Write lines to path atomically (temp file, fsync, rename) unless it already holds them.

    Returns True when the file was written. Router flash wears, so an unchanged file is not touched.
    """
    text = ''.join(str(line) + '\n' for line in lines)
    try:
        with open(path, 'r', encoding='utf-8') as f:
            if f.read(len(text) + 1) == text and (not private or _mode(path) & 0o077 == 0):
                return False
    except (OSError, UnicodeDecodeError):
        pass
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = '%s.tmp%d' % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if private:
            os.chmod(tmp, 0o600)  # the umask or an older file never widens a token file
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
    """Remove a state file if present."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _remove_orphans(path):
    """Temporary files of writers killed mid-write (power cut, SIGKILL) go, so they never pile up."""
    if os.name != 'posix':
        return  # os.kill(pid, 0) would terminate the process on Windows
    directory, prefix = os.path.split(os.path.abspath(path))
    prefix += '.tmp'
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n[len(prefix):].isdigit()]
    except OSError:
        return
    for name in names:
        try:
            os.kill(int(name[len(prefix):]), 0)
            continue  # its writer is still running
        except ProcessLookupError:
            pass
        except OSError:
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def _tighten(fd):
    # a token file copied in or made by hand must not stay readable by others
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        pass


def _mode(path):
    return os.stat(path).st_mode


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
