"""A secret echoed back by a server is masked in every form it can come back in: as sent, JSON-escaped
(ASCII or UTF-8, with or without "\\/"), URL-encoded (strict, "/" kept, form-encoded, lower-case hex),
with its whitespace collapsed and cut short by the excerpt of an answer. Each row makes the real fake
provider echo the live credential in one form, runs the real updater, and looks for it in stdout,
stderr and the log file."""

import json
import os
import re
import sys
from urllib.parse import quote, quote_plus

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'faults'))

from faultkit import per_tool, rig  # noqa: E402,F401  (rig is a fixture)

MARK = 'Zq9Kx7'   # in every form of the secrets below (letters and digits are never escaped)
SECRETS = {'A': MARK + '/Ak3y+"q\\=&%!*(y)', 'B': MARK + ' Pw "q/\u00fc+%&  z\\t\u2028!x*(\U0001F600)'}


def forms(secret):
    """The forms a server may echo a secret back in."""
    lower = re.sub('%[0-9A-F]{2}', lambda m: m.group().lower(), quote(secret, safe=''))
    return {'as sent': secret, 'JSON-escaped': json.dumps(secret)[1:-1],
            'JSON-escaped, UTF-8 kept': json.dumps(secret, ensure_ascii=False)[1:-1],
            'JSON-escaped, slash escaped': json.dumps(secret)[1:-1].replace('/', '\\/'),
            'JSON-escaped, upper-case hex': re.sub(r'\\u[0-9a-f]{4}', lambda m: m.group().upper()
                                                   .replace('\\U', '\\u'), json.dumps(secret)[1:-1]),
            'URL-encoded': quote(secret, safe=''), 'URL-encoded, slash kept': quote(secret),
            'form-encoded': quote_plus(secret), 'URL-encoded, lower-case hex': lower,
            'encodeURIComponent': quote(secret, safe="!'()*")}


FORMS = list(forms('x'))


def in_error_message(rig, form):
    """The provider's error message quotes it (the whole message is logged)."""
    rig.fail('zones', 'reply', status=400, body=rig.error_body([(1004, 'denied for "%s"' % form)]))


def in_a_page(rig, form):
    """A page that is no JSON quotes it after a run of blanks: the excerpt collapses whitespace."""
    rig.fail('zones', 'reply', status=200, text='<html>\n<body>denied for\n\t  %s   </body></html>' % form)


def cut_short(rig, form):
    """A page quotes it where the 200-character excerpt of the answer ends."""
    rig.fail('zones', 'reply', status=200, text='<html>' + '-' * 184 + form + ' and more text')


# every form in every place, each with both updaters (their secrets differ); under make test with
# one of them, in turn (faultkit.per_tool)
CASES = [(tool, form, where) for tool, (form, where) in
         per_tool([(form, where) for where in (in_error_message, in_a_page, cut_short) for form in FORMS])]


@pytest.mark.parametrize('rig, form, where', CASES, ids=['%s-%s-%s' % (t, f, w.__name__) for t, f, w in CASES],
                         indirect=['rig'])
def test_echoed_secret_is_masked_in_every_form(rig, form, where):
    secret = SECRETS[rig.name]
    if rig.name == 'A':
        rig.provider.key = secret
    else:
        rig.provider.password = secret
    echoed = forms(secret)[form]
    rig.seed()
    where(rig, echoed)
    done = rig.run()
    assert done.returncode == 1 and 'Traceback' not in done.stderr, rig.output(done)
    with open(os.path.join(rig.state_dir, rig.log_name), encoding='utf-8') as f:
        logged = f.read()
    assert '***' in done.stdout, done.stdout
    for place, text in (('stdout', done.stdout), ('stderr', done.stderr), ('log file', logged)):
        assert MARK not in text, '%s shows the secret (%s): %s' % (place, form, text)
        collapsed = ' '.join(echoed.split())
        assert echoed not in text and collapsed not in text, (place, text)
