"""ddkit.state.foreign_dir, the one trust check of a directory (the state directory, the single file's
and the stubs' TMPDIR): of posix's functions only, it resolves links itself. Held against the rule
it had with os.path.realpath (each directory of the resolved path, and those above it), on trees of
links, relative links, '..', loops and paths not made yet; and its copy in the single file's start
and the stubs, which runs with posix as os, answers the same."""

import os
import posix
import sys
import time

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, 'lib'))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
from ddkit import state  # noqa: E402
import standalone  # noqa: E402


def by_realpath(directory):
    """The rule as it was written with os.path.realpath: the first of the resolved path and the
    directories above it that is writable by group or others and not sticky, or owned by another user."""
    path = os.path.realpath(directory)
    while True:
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        if st and st.st_mode & 0o170000 == 0o040000 and (
                st.st_uid not in (0, os.geteuid()) or st.st_mode & 0o022 and not st.st_mode & 0o1000):
            return path
        if os.path.dirname(path) == path:
            return None
        path = os.path.dirname(path)


def copied():
    """The copy the single file's start and the stubs compile, run with posix as os, as they run it."""
    scope = {'os': posix}
    exec(compile(standalone.untrusted_source(), '<start>', 'exec'), scope)
    return scope['_ddkit_untrusted']


@pytest.fixture
def tree(tmp_path):
    """A root-owned-like tree (this user's, 0755) with an open directory (0777), a sticky one (1777), and
    links of each kind into them."""
    base = tmp_path / 'base'
    for name, mode in (('safe', 0o755), ('safe/deep', 0o755), ('open', 0o777), ('open/inner', 0o755),
                       ('sticky', 0o1777), ('sticky/inner', 0o700)):
        (base / name).mkdir(parents=True)
        os.chmod(str(base / name), mode)
    for link, target in (('to_safe', 'safe'), ('to_open', str(base / 'open' / 'inner')),
                         ('chain', 'to_safe'), ('up', 'safe/deep/..'), ('to_sticky', 'sticky/inner'),
                         ('loop_a', 'loop_b'), ('loop_b', 'loop_a'), ('dangling', 'missing/dir'),
                         ('safe/deep/back', '../../open')):
        os.symlink(target, str(base / link))
    os.chmod(str(tmp_path), 0o755)
    return base


CASES = ['safe', 'safe/deep', 'open', 'open/inner', 'open/inner/not-made', 'sticky/inner', 'to_safe',
         'to_safe/deep', 'to_open', 'to_open/x', 'chain/deep', 'up', 'up/deep', 'to_sticky',
         'dangling', 'missing/a/b', 'safe/deep/back', 'safe/deep/back/inner', 'safe/../open/inner', 'safe/']


@pytest.mark.parametrize('case', CASES)
def test_the_verdict_is_the_one_realpath_gave(tree, case):
    """Untrusted where the old rule said so, naming the same directory (as given or as resolved)."""
    path = str(tree / case) if not case.endswith('/') else str(tree / case) + '/'
    expected = by_realpath(path)
    for check in (state.foreign_dir, copied()):
        found = check(path)
        assert (found and os.path.realpath(found[0])) == expected, (check, found, expected)
    if expected:
        assert 'can be changed by another user' in state.untrusted(path)[0]


def test_a_relative_path_is_judged_from_the_current_directory(tree, monkeypatch):
    monkeypatch.chdir(str(tree))
    assert state.foreign_dir('safe/deep') is None
    assert state.foreign_dir('open/inner')[0] == str(tree / 'open')
    assert copied()('to_open')[0] == str(tree / 'open')


def test_a_link_whose_directory_others_can_change_is_untrusted_wherever_it_leads(tree):
    """Whoever can write the directory of a link can point it elsewhere: the old rule, judging only
    where it led, trusted it."""
    os.symlink(str(tree / 'safe'), str(tree / 'open' / 'link'))
    assert by_realpath(str(tree / 'open' / 'link')) is None
    assert state.foreign_dir(str(tree / 'open' / 'link'))[0] == str(tree / 'open')


def test_links_are_followed_forty_times_in_all(tree):
    """A loop, and a chain of 80 links: an answer at once (the count is shared by the calls a link
    makes, so no tree of links costs more than 40 walks), and a loop is no verdict by itself."""
    assert state.foreign_dir(str(tree / 'loop_a')) is None
    level = tree / 'safe'
    for n in range(40):
        nxt = tree / 'safe' / ('l%d' % n)
        nxt.mkdir()
        os.symlink(str(level), str(nxt / 'a'))
        os.symlink(str(nxt / 'a'), str(nxt / 'b'))
        level = nxt / 'b'
    started = time.monotonic()
    assert state.foreign_dir(str(level)) is None
    assert time.monotonic() - started < 1


def test_a_relative_path_when_the_current_directory_is_gone(tmp_path, monkeypatch):
    gone = tmp_path / 'gone'
    gone.mkdir()
    monkeypatch.chdir(str(gone))
    gone.rmdir()
    assert state.foreign_dir('x') == ('x', None)
    assert state.untrusted('x')[0] == 'x is relative to the current directory, which is gone'
