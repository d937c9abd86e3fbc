"""Run a program (no shell) and collect what it prints, without the subprocess module.

`import subprocess` loads locale, re, enum, signal, threading and selectors: on a router that is
as much again as the interpreter's own start-up (BENCHMARKS.md), for one `ip6tables -L`. POSIX uses
os.posix_spawnp and two pipes; elsewhere subprocess is used.
"""

from ddkit.native import os


def run(argv, timeout=30, env=None, group=False, limit=None):
    """(exit status, stdout, stderr) of argv, output decoded as UTF-8; OSError when it cannot be
    started; TimeoutError, after killing it, when it runs longer than timeout seconds.

    env: its whole environment (default: ours); group: in a process group of its own, all of which
    the timeout kills (a hook's children too); limit: bytes kept of each stream, the rest read away."""
    if os.name != 'posix' or not hasattr(os, 'posix_spawnp'):
        return _portable(argv, timeout, env, limit)
    import select
    import time
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    try:
        pid = os.posix_spawnp(argv[0], list(argv), dict(os.environ if env is None else env),
                              file_actions=actions, **({'setpgroup': 0} if group else {}))
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    chunks, watching = {out_r: [], err_r: []}, [out_r, err_r]
    deadline = time.monotonic() + timeout
    try:
        while watching:
            left = deadline - time.monotonic()
            ready = select.select(watching, [], [], left)[0] if left > 0 else []
            if not ready:
                try:
                    (os.killpg if group else os.kill)(pid, 9)
                except ProcessLookupError:  # the group's last member ended just now
                    pass
                os.waitpid(pid, 0)
                raise TimeoutError('%s ran longer than %g seconds' % (argv[0], timeout))
            for fd in ready:
                chunk = os.read(fd, 65536)
                if chunk:
                    if limit is None or sum(map(len, chunks[fd])) < limit:
                        chunks[fd].append(chunk)
                else:
                    watching.remove(fd)  # closed by the program
    finally:
        os.close(out_r)
        os.close(err_r)
    status = os.waitpid(pid, 0)[1]
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    return code, _text(chunks[out_r], limit), _text(chunks[err_r], limit)


def _text(chunks, limit=None):
    return b''.join(chunks)[:limit].decode('utf-8', 'replace')


def _portable(argv, timeout, env=None, limit=None):
    import subprocess
    try:
        done = subprocess.run(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise TimeoutError('%s ran longer than %g seconds' % (argv[0], timeout))
    return done.returncode, _text([done.stdout], limit), _text([done.stderr], limit)
