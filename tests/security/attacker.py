"""A local attacker for the security rows: a real unprivileged user (nobody) who can write the state
directory only where the tools trust it (sticky, group-writable: the rule of ddkit.state.untrusted),
and the root-owned places around it that the attacker must never reach through a root run."""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest
import needs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'faults'))
sys.path.insert(0, os.path.dirname(HERE))

USER = 'nobody'


def require_root():
    """Skip where the rows cannot run (not root, no setpriv); under CI=true, fail instead."""
    why = None
    if os.name != 'posix' or os.geteuid() != 0:
        why = 'needs root: the attacker is a real unprivileged user, the victim a root run'
    elif not shutil.which('setpriv'):
        why = 'needs setpriv (util-linux)'
    else:
        try:
            import pwd
            pwd.getpwnam(USER)
        except KeyError:
            why = 'needs the user %s' % USER
    if why:
        needs.missing(why)


def group():
    from netns import user_group
    return user_group(USER)


def as_user(script, check=True):
    """Run a shell script as the unprivileged user (umask 0: the worst it could choose)."""
    done = subprocess.run(['setpriv', '--reuid=%s' % USER, '--regid=%s' % group(), '--clear-groups',
                           'sh', '-c', 'umask 0; ' + script], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise AssertionError('as %s: %s failed: %s' % (USER, script, done.stderr))
    return done


class Place:
    """A root-owned base directory the attacker can pass through but not list or write (0711), a
    root file in it the attacker cannot read (the victim), and the state directory: sticky and
    writable by the attacker's group (a shared directory the tools still trust)."""

    def __init__(self):
        self.base = tempfile.mkdtemp(prefix='ddkit-sec-', dir='/tmp')
        os.chmod(self.base, 0o711)
        self.state = os.path.join(self.base, 'state')
        os.mkdir(self.state)
        import grp
        os.chown(self.state, 0, grp.getgrnam(group()).gr_gid)
        os.chmod(self.state, 0o1770)
        self.victim = os.path.join(self.base, 'victim')

    def victim_file(self, text, mode=0o600):
        with open(self.victim, 'w') as f:
            f.write(text)
        os.chmod(self.victim, mode)
        return self.victim

    def victim_state(self):
        try:
            st = os.stat(self.victim)
        except FileNotFoundError:
            return None
        with open(self.victim) as f:
            return f.read(), st.st_mode & 0o7777, st.st_uid

    def plant_link(self, name, target):
        as_user('ln -s "%s" "%s"' % (target, os.path.join(self.state, name)))

    def plant_file(self, name, mode=0o666):
        as_user(': > "%s" && chmod %o "%s"' % ((os.path.join(self.state, name), mode,
                                                  os.path.join(self.state, name))))

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture
def place():
    """A state directory the attacker can plant things in (Place), removed after the test."""
    require_root()
    made = Place()
    yield made
    made.close()
