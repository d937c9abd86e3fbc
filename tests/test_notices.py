"""notify and notify_on (issue 42 parts 1-3): the updater run for real against the fake provider A and
the fakes of every notification service (tests/fakes/notices.py) over HTTP on 127.0.0.1, each named
by its KIND+ prefix; the recognition of the services' real URLs, without sending; the queue of the
notices that could not be delivered; what --check says and sends; what a quiet run loads."""

import os
import stat
import sys
import time

import pytest

from conftest import RECORD, ROOT, ZONE, run_tool
from fakes.notices import SERVICES, DingTalk, Feishu, Gotify, Ntfy, Slack, Telegram, WeCom
from providers import of

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import NOTICES_FILE, UsageError, notices, settings, updater  # noqa: E402
from ddkit.log import Log  # noqa: E402
from ddkit.urls import notify_secrets, notify_target  # noqa: E402

OLD, NEW, NEWER = '81.2.69.1', '81.2.69.10', '81.2.69.20'
PROVIDER = of('updater_a').provider   # the provider updater_a is fixed to: what its notices name
KINDS = [cls.KIND for cls in SERVICES]
STATUS = '.updater_a_%s.status' % RECORD
IP_FILE = '.cf-wan_ip_%s.txt' % RECORD
# what each service answers a message whose key, token or topic is wrong, as the log shows it
REFUSED = {'telegram': 'HTTP 401, code 401: Unauthorized', 'wecom': 'HTTP 200, code 93000: invalid webhook url',
           'dingtalk': 'HTTP 200, code 300001: token is not exist',
           'feishu': 'HTTP 200, code 19001: param invalid: incoming webhook access token invalid',
           'bark': 'HTTP 400, code 400: failed to get device token', 'serverchan': 'HTTP 200, code 40001: bad pushtoken',
           'pushdeer': 'HTTP 200, code 80501: pushkey does not exist', 'pushplus': 'HTTP 200, code 903: ',
           'ntfy': 'HTTP 403, code 40301: forbidden', 'gotify': 'HTTP 401, code 401: you need to provide a valid',
           'discord': 'HTTP 401, code 50027: Invalid Webhook Token', 'slack': 'HTTP 403: invalid_token'}


@pytest.fixture
def services():
    """start(cls, ...): a fake notification service, stopped after the test."""
    started = []

    def start(cls, **options):
        started.append(cls(**options).start())
        return started[-1]
    yield start
    for fake in started:
        fake.stop()


def run(box, state, *targets, args=(), **env):
    """updater_a against provider A, told to notify the targets (fakes, or URLs)."""
    settings_ = dict(box.env_a(str(state)), DDNS_NOTIFY=' '.join(getattr(t, 'notify_url', t) for t in targets))
    settings_.update(env)
    done = run_tool('updater_a', list(args), env=settings_)
    assert 'Traceback' not in done.stderr, done.stderr
    return done


def changing(box, state):
    """The record at provider A and the ip file hold OLD, the lookup says NEW: the next run updates it."""
    box.provider_a.add_record(box.zone_a, RECORD, 'A', OLD)
    (state / IP_FILE).write_text(OLD + '\n')
    box.lookup.answer = NEW


def log_of(state):
    return (state / ('updater_a_%s.log' % RECORD)).read_text()


def everything_shown(done, state):
    """All a run showed and left: its output, and every state file's name and text."""
    texts = [done.stdout, done.stderr] + sorted(os.listdir(str(state)))
    texts += [(state / name).read_text() for name in os.listdir(str(state)) if (state / name).is_file()]
    return '\n'.join(texts)


def secret_parts(fake):
    """What of a fake's notify URL must never be shown: all of it but its kind and host."""
    parts = notify_secrets([fake.notify_url]) + [fake.KEY]
    return parts + [getattr(fake, 'SECRET', None)] if getattr(fake, 'secret', None) else parts


# what each service's body must hold beyond the text (the fakes refuse what their services refuse)
SHAPES = {
    'telegram': lambda fake, sent, req: sent['chat_id'] == Telegram.CHAT,
    'wecom': lambda fake, sent, req: sent['msgtype'] == 'text' and req.headers['content-type'] == 'application/json',
    'dingtalk': lambda fake, sent, req: sent['msgtype'] == 'text' and {'timestamp', 'sign'} <= set(req.query),
    'feishu': lambda fake, sent, req: sent['msg_type'] == 'text' and {'timestamp', 'sign'} <= set(sent),
    'bark': lambda fake, sent, req: sent['title'].startswith('ddkit: ') and sent['group'] == 'ddkit',
    'serverchan': lambda fake, sent, req: 0 < len(sent['title']) <= 32 and 'desp' in sent,
    'pushdeer': lambda fake, sent, req: sent['type'] == 'text' and req.headers['content-type'].startswith(
        'application/x-www-form-urlencoded'),
    'pushplus': lambda fake, sent, req: sent['template'] == 'txt' and sent['token'] == fake.KEY,
    'ntfy': lambda fake, sent, req: req.route == 'json' and sent['topic'] == fake.KEY,
    'gotify': lambda fake, sent, req: fake.tokens_in_query == 0 and req.headers['x-gotify-key'] == fake.KEY,
    'discord': lambda fake, sent, req: sent['allowed_mentions'] == {'parse': []},
    'slack': lambda fake, sent, req: set(sent) == {'text'},
}


@pytest.mark.parametrize('cls', SERVICES, ids=KINDS)
def test_each_kind_is_told_a_change_in_its_documented_shape(box, services, tmp_path, cls):
    fake = services(cls)
    changing(box, tmp_path)
    done = run(box, tmp_path, fake)
    assert done.returncode == 0, done.stdout + done.stderr
    assert box.provider_a.find(RECORD)[0]['content'] == NEW
    assert len(fake.messages) == 1 and len(fake.requests) == 1, fake.calls()
    message = fake.messages[0]
    assert '%s A (%s) updated: %s -> %s' % (RECORD, PROVIDER, OLD, NEW) in message['text']
    assert SHAPES[cls.KIND](fake, fake.sent[0], fake.requests[0])
    assert 'notify: %s 127.0.0.1 told (updated)' % cls.KIND in log_of(tmp_path)
    shown = everything_shown(done, tmp_path)
    assert [part for part in secret_parts(fake) if part in shown] == []
    assert not (tmp_path / NOTICES_FILE).exists()
    # a signing robot's secret is never sent: only its signature is
    raw = [r.raw_query.encode() + r.body for r in fake.requests]
    assert not any(getattr(fake, 'SECRET', 'never').encode() in data for data in raw)


@pytest.mark.parametrize('cls', SERVICES, ids=KINDS)
def test_each_kind_refusing_is_logged_kept_and_told_by_the_next_run(box, services, tmp_path, cls):
    fake = services(cls)
    fake.key = 'another-key-0123456789'   # the URL's key, token or topic is not the service's now
    changing(box, tmp_path)
    done = run(box, tmp_path, fake)
    assert done.returncode == 0, done.stdout + done.stderr   # the update stands
    assert box.provider_a.find(RECORD)[0]['content'] == NEW and fake.messages == []
    assert 'notify: %s 127.0.0.1: answered %s' % (cls.KIND, REFUSED[cls.KIND]) in log_of(tmp_path)
    assert 'the notice kept for the next run' in done.stdout
    queue = tmp_path / NOTICES_FILE
    assert stat.S_IMODE(os.stat(str(queue)).st_mode) == 0o600
    (line,) = queue.read_text().splitlines()
    # what it tells is said once, in its text (queue_line)
    assert line.split(' ', 2)[2:] == ['%s A (%s) updated: %s -> %s' % (RECORD, PROVIDER, OLD, NEW)]
    assert [part for part in secret_parts(fake) if part in everything_shown(done, tmp_path)] == []

    fake.key = fake.KEY   # fixed: the next run, with nothing changed, tells what was kept
    again = run(box, tmp_path, fake)
    assert again.returncode == 0 and 'IP has not changed' in again.stdout, again.stdout + again.stderr
    assert len(fake.messages) == 1 and 'updated: %s -> %s' % (OLD, NEW) in fake.messages[0]['text']
    assert not queue.exists()
    third = run(box, tmp_path, fake)   # told once: nothing kept, nothing sent
    assert third.returncode == 0 and len(fake.requests) == 2


@pytest.mark.parametrize('cls, code', [(DingTalk, 'code 310000: sign not match'),
                                       (Feishu, 'code 19021: sign match fail')], ids=['dingtalk', 'feishu'])
def test_a_signature_with_another_secret_is_refused(box, services, tmp_path, cls, code):
    fake = services(cls, secret='SECanother0123456789abcdef')
    changing(box, tmp_path)
    done = run(box, tmp_path, fake)
    assert done.returncode == 0 and fake.messages == []
    assert 'notify: %s 127.0.0.1: answered HTTP 200, %s' % (cls.KIND, code) in done.stdout
    unsigned = services(cls, secret=None)   # a robot without signing takes its URL without secret=
    changing(box, tmp_path)
    box.lookup.answer = NEWER
    assert run(box, tmp_path, unsigned).returncode == 0 and len(unsigned.messages) == 1


STREAK = [   # (what the run meets, what a default notify_on tells of it)
    ('ok', None),                 # the first run: unchanged (verified at the provider)
    ('provider fails', 'failed'),   # the first failure of a streak
    ('provider fails', None),     # the same streak
    ('no ip', None),              # judged nothing: the streak goes on
    ('provider fails', None),
    ('ok', 'recovered'),          # the first good run after failures
    ('ok', None),
    ('new ip', 'updated'),
    ('ok', None),
]


@pytest.mark.parametrize('notify_on', [None, 'change', 'failure recovery'])
def test_a_failure_streak_is_told_once_and_its_recovery_once(box, services, tmp_path, notify_on):
    fake = services(Ntfy)
    box.provider_a.add_record(box.zone_a, RECORD, 'A', NEW)
    (tmp_path / IP_FILE).write_text(NEW + '\n')
    told, wanted = [], []
    events = {'failed': 'failure', 'recovered': 'recovery', 'updated': 'change'}
    for meets, tells in STREAK:
        box.provider_a.faults.clear()
        box.lookup.answer = {'no ip': 'not an address', 'new ip': NEWER}.get(meets, box.provider_a.find(RECORD)[0]
                                                                               ['content'])
        if meets == 'provider fails':   # refused, not retried: no backoff to wait for
            box.provider_a.fail('status', times=10, status=403, text='forbidden for now')
        env = {'DDNS_VERIFY_INTERVAL': '0'}   # every run reads the record: an unchanged one can fail
        if notify_on:
            env['DDNS_NOTIFY_ON'] = notify_on
        done = run(box, tmp_path, fake, **env)
        assert done.returncode == (1 if meets == 'provider fails' else 0), done.stdout + done.stderr
        told += [m['title'].rpartition(' ')[2] for m in fake.messages[len(told):]]
        wanted += [tells] if tells and events[tells] in (notify_on or 'change failure recovery').split() else []
        assert told == wanted, (meets, done.stdout)
    texts = [m['text'] for m in fake.messages]
    if 'recovered' in told:
        assert '%s A (%s) recovered: holds %s (failing since 20' % (RECORD, PROVIDER, NEW) in texts[told.index('recovered')]
    if 'failed' in told:
        failed = texts[told.index('failed')]
        assert '%s A (%s) failed: read record: ' % (RECORD, PROVIDER) in failed and 'forbidden for now' in failed


def test_a_change_after_failures_is_told_as_a_recovery(box, services, tmp_path):
    fake = services(Telegram)
    changing(box, tmp_path)
    box.provider_a.fail('status', times=10, status=403, text='forbidden for now')
    assert run(box, tmp_path, fake, DDNS_NOTIFY_ON='recovery').returncode == 1
    box.provider_a.faults.clear()
    assert run(box, tmp_path, fake, DDNS_NOTIFY_ON='recovery').returncode == 0
    (message,) = fake.messages
    assert '%s A (%s) recovered, updated: %s -> %s (failing since' % (RECORD, PROVIDER, OLD, NEW) in message['text']


def test_a_notice_never_changes_the_exit_status(box, services, tmp_path):
    # the service is not there at all: the update succeeds, exit 0, the notice kept
    changing(box, tmp_path)
    gone = 'ntfy+http://127.0.0.1:1/router-alerts'
    done = run(box, tmp_path, gone)
    assert done.returncode == 0 and box.provider_a.find(RECORD)[0]['content'] == NEW, done.stdout + done.stderr
    assert 'notify: ntfy 127.0.0.1: no answer from http://127.0.0.1:1/***' in done.stdout
    assert (tmp_path / NOTICES_FILE).read_text().count('\n') == 1
    # a failed update with a service that takes its notice, and with one that refuses it: exit 1 both
    fake = services(WeCom)
    box.lookup.answer = NEWER
    box.provider_a.fail('status', times=10, status=403, text='forbidden for now')
    told = run(box, tmp_path, fake)
    assert told.returncode == 1 and len(fake.messages) == 1
    assert '(%s) failed: ' % PROVIDER in fake.messages[0]['text'] and 'forbidden for now' in fake.messages[0]['text']
    fake.key = 'another'
    (tmp_path / STATUS).unlink()   # a first failure again
    refused = run(box, tmp_path, fake)
    assert refused.returncode == 1 and 'code 93000' in refused.stdout


def test_several_records_tell_each_target_once_over_one_connection(box, services, tmp_path):
    targets = [services(Telegram), services(WeCom), services(Gotify)]
    shared = services(Ntfy)   # two topics of one server: one connection for both
    shared.topics.add('second-topic-4b2e1d')
    names = ['home.' + ZONE, 'www.' + ZONE, 'nas.' + ZONE]
    for name in names:
        box.provider_a.add_record(box.zone_a, name, 'A', OLD)
        (tmp_path / ('.cf-wan_ip_%s.txt' % name)).write_text(OLD + '\n')
    box.lookup.answer = NEW
    config = tmp_path / 'records.conf'
    config.write_text(''.join('[%s]\nrecord_name=%s\n' % (name.split('.')[0], name) for name in names))
    os.chmod(str(config), 0o600)
    env = {k: v for k, v in box.env_a(str(tmp_path)).items() if k != 'DDNS_RECORD_NAME'}
    env['DDNS_NOTIFY'] = ' '.join([t.notify_url for t in targets + [shared]] +
                                  [shared.notify_url.replace(Ntfy.KEY, 'second-topic-4b2e1d')])
    done = run_tool('updater_a', ['--all', '--config', str(config)], env=env)
    assert done.returncode == 0 and done.stdout.count('IP has been updated to') == 3, done.stdout + done.stderr
    for fake in targets:
        assert fake.connections == 1 and len(fake.requests) == 1, (fake.KIND, fake.calls())
        (message,) = fake.messages
        assert all('%s A (%s) updated: %s -> %s' % (name, PROVIDER, OLD, NEW) in message['text'] for name in names)
    assert targets[2].messages[0]['title'] == 'ddkit: 3 updated'
    assert shared.connections == 1 and len(shared.messages) == 2 and shared.calls() == ['json', 'json']


def test_the_queue_is_bounded_old_notices_dropped_and_unknown_lines_ignored(tmp_path):
    path = str(tmp_path / NOTICES_FILE)
    now = int(time.time())
    log = Log(str(tmp_path / 'run.log'), quiet=True)
    old = notices.queue_line('0123456789abcdef', now - notices.QUEUE_AGE - 1, 'failed', 'a week ago')
    with open(path, 'w') as f:
        f.write(old + '\nnot a line of ours\n')
    lines = [notices.queue_line('fedcba9876543210', now, 'updated', 'notice %d ' % n + 'x' * 2000) for n in range(60)]
    notices.keep(log, path, set(), lines, now)
    kept = open(path).read().splitlines()
    assert len(kept) == notices.QUEUE_MAX and kept[0].startswith('fedcba9876543210 %d updated notice 10 ' % now)
    assert all(len(line) < notices.PART_MAX + 40 for line in kept)   # each notice cut
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert '10 older notices dropped: at most 50 are kept' in (tmp_path / 'run.log').read_text()
    notices.keep(log, path, set(kept), [], now)   # all delivered: no file left
    assert not os.path.exists(path)


def test_check_lists_each_target_and_sends_only_a_test_message_when_asked(box, services, tmp_path):
    good, wrong = services(Telegram), services(DingTalk)
    wrong.key = 'another'
    box.provider_a.add_record(box.zone_a, RECORD, 'A', NEW)
    box.lookup.answer = NEW
    done = run(box, tmp_path, good, wrong, args=['--check'])
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'ok    notify telegram 127.0.0.1: told on change, failure, recovery (nothing sent' in done.stdout
    assert 'ok    notify dingtalk 127.0.0.1: told on' in done.stdout
    assert good.requests == [] and wrong.requests == []
    tested = run(box, tmp_path, good, wrong, args=['--check', '--notify-test'])
    assert tested.returncode == 1, tested.stdout
    assert 'ok    notify telegram 127.0.0.1: the test message was delivered' in tested.stdout
    assert 'FAIL  notify dingtalk 127.0.0.1: answered HTTP 200, code 300001: token is not exist -- fix: ' \
        in tested.stdout
    (message,) = good.messages
    assert 'ddkit test message: record %s A (%s) is told here' % (RECORD, PROVIDER) in message['text']
    shown = tested.stdout + tested.stderr + done.stdout
    assert [part for fake in (good, wrong) for part in secret_parts(fake) if part in shown] == []
    assert os.listdir(str(tmp_path)) == []   # --check writes nothing, the test message neither
    alone = run(box, tmp_path, good, args=['--notify-test'])
    assert alone.returncode == 2 and '--notify-test goes with --check' in alone.stderr


# the URLs as each service gives them (the facts' forms), recognised by their host alone
REAL = [('https://api.telegram.org/bot123456:ABC-def/sendMessage?chat_id=-1001', 'telegram'),
        ('https://API.Telegram.org/bot123456:ABC-def/sendMessage?chat_id=@channel', 'telegram'),
        ('https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7c1e', 'wecom'),
        ('https://oapi.dingtalk.com/robot/send?access_token=a3f5e8d2&secret=SECb1c2d3', 'dingtalk'),
        ('https://open.feishu.cn/open-apis/bot/v2/hook/2f9c4b1e-8d7a?secret=qW3eR5', 'feishu'),
        ('https://open.larksuite.com/open-apis/bot/v2/hook/2f9c4b1e-8d7a', 'feishu'),
        ('https://api.day.app/xR4mFq9ZbTk2LwYp8sVn3C', 'bark'),
        ('https://sctapi.ftqq.com/SCT214159TpQrStUv.send', 'serverchan'),
        ('https://7777.push.ft07.com/send/sctp7777tAbCdEf.send', 'serverchan'),
        ('https://api2.pushdeer.com/message/push?pushkey=PDU1234TAbCd', 'pushdeer'),
        ('https://www.pushplus.plus/send?token=0a1b2c3d4e5f', 'pushplus'),
        ('https://ntfy.sh/router-alerts-7f3a9c', 'ntfy'),
        ('https://discord.com/api/webhooks/1234567890/kQ9wE8rT7yU6', 'discord'),
        ('https://discordapp.com/api/webhooks/1234567890/kQ9wE8rT7yU6', 'discord'),
        ('https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXX', 'slack'),
        ('gotify+https://push.example.org/message?token=AbCdEfGhIjK', 'gotify'),
        ('ntfy+http://192.168.1.2/router-alerts', 'ntfy'),
        ('Telegram+https://tg-proxy.example.org/bot123456:ABC-def/sendMessage?chat_id=1', 'telegram')]


def load(*urls, **env):
    args = settings.parse_args([], updater.COMMON, updater.SWITCHES)
    environ = dict({'DDNS_NOTIFY': ' '.join(urls)}, **env)
    return settings.load(args, updater.COMMON, updater.SWITCHES, environ=environ)


def test_the_real_urls_are_known_by_their_host_and_masked_but_kind_and_host():
    cfg = load(*[url for url, _ in REAL])
    assert cfg.notify == [url for url, _ in REAL] and cfg.notify_on == ['change', 'failure', 'recovery']
    assert [notify_target(url)[0] for url in cfg.notify] == [kind for _, kind in REAL]
    log = Log(None, secrets=cfg.secrets)
    for url in cfg.notify:
        kind, _, host = notify_target(url)
        masked = log.clean('told %s at %s %s' % (url, kind, host))
        assert masked.endswith('at %s %s' % (kind, host.lower())) and url not in masked, masked
        # the key, token, topic, chat or secret alone, as an answer may echo it
        for piece in ('123456:ABC-def', '693a91f6-7c1e', 'a3f5e8d2', 'SECb1c2d3', '2f9c4b1e-8d7a', 'qW3eR5', 'xR4mFq9ZbTk2LwYp8sVn3C',
                      'SCT214159TpQrStUv', 'sctp7777tAbCdEf', 'PDU1234TAbCd', '0a1b2c3d4e5f', 'router-alerts-7f3a9c',
                      'kQ9wE8rT7yU6', 'XXXXXXXX', 'AbCdEfGhIjK', '@channel'):
            if piece in url:
                assert piece not in log.clean('the service said: %s.' % piece), (url, piece)


@pytest.mark.parametrize('url, why', [
    ('https://push.example.org/message?token=SECRETTOKEN123', 'the host push.example.org is none of the '
     'notification services\'; for a self-hosted server or another host, name the kind before the scheme: '
     'KIND+https://...; the kinds: telegram, wecom, dingtalk, feishu, bark, serverchan, pushdeer, pushplus, ntfy, '
     'gotify, discord, slack'),
    ('pushover+https://api.pushover.net/1/messages.json?token=SECRETTOKEN123', 'pushover+ names no notification '
     'service; the kinds: telegram,'),
    ('http://api.telegram.org/botSECRETTOKEN123/sendMessage?chat_id=1', 'telegram api.telegram.org: a service\'s '
     'own URL is https://'),
    ('https://api.telegram.org/botSECRETTOKEN123/sendMessage?chat_id=1&secret=SECRETTOKEN123', 'telegram '
     'api.telegram.org: secret= signs the messages of dingtalk and feishu robots only'),
    ('gotify+ftp://push.example.org/SECRETTOKEN123', 'gotify push.example.org: must be an http:// or https:// URL')])
def test_a_url_of_no_known_kind_is_refused_naming_the_kinds_never_the_secret(url, why):
    with pytest.raises(UsageError) as refused:
        load('https://ntfy.sh/fine-topic-123', url)
    assert refused.value.exit_status == 2
    assert why in str(refused.value) and 'SECRETTOKEN123' not in str(refused.value), str(refused.value)


def test_a_refused_url_stops_the_run_before_anything_is_sent(box, tmp_path):
    changing(box, tmp_path)
    done = run(box, tmp_path, 'https://push.example.org/message?token=SECRETTOKEN123')
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert 'bad value for notify (DDNS_NOTIFY): the host push.example.org is none' in done.stderr
    assert 'SECRETTOKEN123' not in done.stderr + done.stdout
    assert box.lookup.calls() == [] and box.provider_a.calls() == []
    bad_on = run(box, tmp_path, 'https://ntfy.sh/fine-topic-123', DDNS_NOTIFY_ON='change everything')
    assert bad_on.returncode == 2 and 'notify_on' in bad_on.stderr and 'change, failure, recovery' in bad_on.stderr


def imported(done):
    return [line.rsplit('|', 1)[-1].strip() for line in done.stderr.splitlines()
            if line.startswith('import time:') and not line.endswith('imported package')]


@pytest.mark.usefixtures('native_interfaces')
def test_an_unchanged_run_with_notify_loads_what_one_without_it_loads(box, services, tmp_path):
    fake = services(Telegram)
    (tmp_path / IP_FILE).write_text(NEW + '\n')
    box.lookup.answer = NEW
    env = box.env_a(str(tmp_path))
    plain = run_tool('updater_a', env=env, flags=['-X', 'importtime'])
    told = run_tool('updater_a', env=dict(env, DDNS_NOTIFY=fake.notify_url + ' https://oapi.dingtalk.com/robot/send?'
                                          'access_token=%s&secret=%s' % (DingTalk.KEY, DingTalk.SECRET)),
                    flags=['-X', 'importtime'])
    for done in (plain, told):
        assert done.returncode == 0 and 'IP has not changed' in done.stdout, done.stdout + done.stderr
    assert imported(told) == imported(plain)
    assert not {'ddkit.notify', 'ddkit.notices', 'hmac', 'hashlib'} & set(imported(told))
    assert fake.requests == []


def test_a_created_record_is_a_change(box, services, tmp_path):
    fake = services(Slack)
    box.lookup.answer = NEW
    done = run(box, tmp_path, fake, DDNS_NOTIFY_ON='change')
    assert done.returncode == 0 and box.provider_a.find(RECORD)[0]['content'] == NEW, done.stdout + done.stderr
    assert [m['text'].split('\n')[0] for m in fake.messages] == ['%s A (%s) created: %s' % (RECORD, PROVIDER, NEW)]


class Job:
    """What notices.about reads of a record's run (ddkit.provider.Job), for the outcomes a run of the
    fakes above does not reach here (a line's record removed needs the kernel's addresses)."""

    def __init__(self, outcome_ip, line=None, failure=None, secrets=()):
        from types import SimpleNamespace
        self.cfg = SimpleNamespace(record_name=RECORD, record_type='AAAA')
        self.provider = SimpleNamespace(NAME=PROVIDER)
        self.line, self.failure, self.log = line, failure, Log(None, secrets=secrets)
        self.old_ip, self.new_ip = outcome_ip


def test_what_a_notice_says_of_each_outcome():
    from ddkit import CREATED, FAILED, REMOVED, UNCHANGED, Failure
    gone = Job(('240e:1::10', None), line='ct')
    assert notices.about(gone, REMOVED, None) == ('removed', '%s AAAA line ct (%s) removed: it held 240e:1::10; '
                                                  'the line has no address' % (RECORD, PROVIDER))
    back = notices.about(gone, REMOVED, '1767225600')   # removed after failures: a recovery too
    assert back[0] == 'recovered' and back[1].startswith('%s AAAA line ct (%s) recovered, removed: it held' % (
        RECORD, PROVIDER)) and '(failing since 2026-01-0' in back[1]
    assert notices.about(Job((None, '2001:db8::1')), CREATED, None)[1].endswith('created: 2001:db8::1')
    assert notices.about(Job(('2001:db8::1', '2001:db8::1')), UNCHANGED, 'x' * 40)[1].endswith(
        'recovered: holds 2001:db8::1 (failing since an earlier run)')   # a damaged status: no time
    failure = Failure.at('update record', 'token tok-0123456789abcdef refused' + ' long' * 200, fix='renew the token')
    what, text = notices.about(Job((None, None), failure=failure, secrets=['tok-0123456789abcdef']), FAILED, None)
    assert what == 'failed' and 'tok-0123456789abcdef' not in text and 'token *** refused' in text
    assert len(text) <= notices.PART_MAX and text.endswith('...')   # cut: the fix is past the end here
    short = Failure.at('find zone', 'no such zone', fix='check zone_name')
    assert notices.about(Job((None, None), failure=short), FAILED, None)[1].endswith(
        'failed: find zone: no such zone; fix: check zone_name')


@pytest.mark.parametrize('form', ['flag', 'environment', 'config file', 'uci section'])
def test_notify_comes_in_every_form_of_a_repeated_setting(tmp_path, form):
    urls = ['https://ntfy.sh/router-alerts-7f3a9c', 'https://api.day.app/xR4mFq9ZbTk2LwYp8sVn3C']
    argv, environ = [], {}
    if form == 'flag':
        argv = ['--notify', urls[0], '--notify', urls[1], '--notify-on', 'failure']
    elif form == 'environment':
        environ = {'DDNS_NOTIFY': ' '.join(urls), 'DDNS_NOTIFY_ON': 'failure'}
    elif form == 'config file':
        path = tmp_path / 'conf'
        path.write_text('notify=%s\nnotify_on=failure\n' % ' '.join(urls))
        os.chmod(str(path), 0o600)
        argv = ['--config', str(path)]
    else:
        path = tmp_path / 'updater_a'
        path.write_text("config updater_a 'home'\n" + ''.join("\tlist notify '%s'\n" % url for url in urls) +
                        "\tlist notify_on 'failure'\n")
        argv, environ = ['--uci', 'home'], {'DDNS_UCI_FILE': str(path)}
    args = settings.parse_args(argv, updater.COMMON, updater.SWITCHES, files=True)
    cfg = settings.load(args, updater.COMMON, updater.SWITCHES, environ=environ,
                        **settings.named_section(args, 'updater_a', updater.COMMON, environ))
    assert (cfg.notify, cfg.notify_on) == (urls, ['failure']) and cfg.sources['notify'] == form
    assert {'router-alerts-7f3a9c', 'xR4mFq9ZbTk2LwYp8sVn3C'} <= set(cfg.secrets)


def test_a_robot_over_its_rate_keeps_the_notice(services, tmp_path):
    """DingTalk takes 20 messages a minute from a robot, then answers 130101 (HTTP 200): kept."""
    fake = services(DingTalk)
    fake.messages += [{'title': None, 'text': 'earlier', 'at': time.time()}] * 20
    log = Log(str(tmp_path / 'run.log'), quiet=True, secrets=notify_secrets([fake.notify_url]))
    notices.deliver(log, [([fake.notify_url], ('updated', 'home A updated: 1 -> 2'), None, 5, None)], str(tmp_path))
    assert len(fake.messages) == 20 and len(fake.requests) == 1
    assert 'answered HTTP 200, code 130101: send too fast' in (tmp_path / 'run.log').read_text()
    (line,) = (tmp_path / NOTICES_FILE).read_text().splitlines()
    assert line.endswith(' updated home A updated: 1 -> 2')


def test_a_kept_record_notice_says_what_it_tells_once_and_reads_back_the_same(tmp_path):
    """A record's notice says what it tells after its subject; its queue line does not say it again.
    A text that does not say it (and a line of an older build, which said it first) keeps the word."""
    now = int(time.time())
    told = 'home.example.com AAAA line ct (westcn) created: 240e::1'
    back = 'home.example.com A (cloudflare) recovered, updated: 81.2.69.1 -> 81.2.69.10 (failing since x)'
    lines = [notices.queue_line('0123456789abcdef', now, 'created', told),
             notices.queue_line('0123456789abcdef', now, 'recovered', back),
             notices.queue_line('0123456789abcdef', now, 'failed', 'no subject here'),
             '0123456789abcdef %d created %s' % (now, told)]
    assert lines[0] == '0123456789abcdef %d %s' % (now, told) and lines[0].count('created') == 1
    path = tmp_path / NOTICES_FILE
    path.write_text('\n'.join(lines) + '\n')
    path.chmod(0o600)
    assert [parts[1:3] for _, parts in notices.queued(str(path))] == [
        ('created', told), ('recovered', back), ('failed', 'no subject here'), ('created', told)]
