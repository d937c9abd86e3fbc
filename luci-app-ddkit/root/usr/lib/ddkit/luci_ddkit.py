"""The code of the rpcd plugin luci.ddkit (/usr/libexec/rpcd/luci.ddkit imports it, a module that
Python keeps compiled): what the LuCI page of ddkit reads and runs, through rpcd's executable-plugin
protocol (`luci.ddkit list`; `luci.ddkit call <method>` with a JSON object on stdin, one on stdout).
It runs the ddkit command's own code in this process (the library of the package ddkit, its command
of ddkit-command): nothing the page sends reaches a shell or another program's command line. rpcd
has checked the caller's ACL for the method before it starts this; a section the page names must
be a UCI name of an existing `config ddkit` section of /etc/config/ddkit, checked before anything runs.

Methods: providers (ddkit --providers --json), status (ddkit --status --json --all, each record with
its section), check {section} (ddkit --uci SECTION --check: its lines and exit status), update
{section} (runs that record: its outcome, lines and exit status), import {dry_run, force} (ddkit
--import-ddns of ddns-scripts' file beside the UCI file, /etc/config/ddns: its service sections
counted, its lines and exit status; a dry run unless dry_run is false). A refusal is {"error": "..."}.
"""

import io
import sys


def library(here):
    """Where the library is: beside this module (/usr/lib/ddkit, installed), else the repository's lib/.
    Found with io, which the interpreter has loaded: the os module would cost each call a tenth of its
    CPU (ddkit.native, which the library's modules take it from)."""
    try:
        io.open(here + '/ddkit/__init__.py', 'rb').close()
        return here
    except OSError:
        return here + '/../../../../../lib'


LIB = library(__file__.rpartition('/')[0] or '.')
if LIB not in sys.path:
    sys.path.insert(0, LIB)

METHODS = {'providers': {}, 'status': {}, 'check': {'section': 'str'}, 'update': {'section': 'str'},
           'import': {'dry_run': True, 'force': True}}   # rpcd takes a value's JSON type as the argument's
INPUT_MAX = 4096     # bytes of a request read: a section name is all any method takes
LINES_MAX = 400      # lines of a check or an update returned (a record with lines says a few dozen)
LINE_MAX = 1000      # characters of each
TOOL = 'ddkit'
# how bad an outcome is, worst first: an update of several jobs (families, lines) reports the worst
WORST = ('failed', 'no-ip', 'removed', 'created', 'updated', 'unchanged', 'never')


def main(argv):
    try:
        from ddkit import jsontext
    except ImportError:
        sys.stdout.write('{"error": "the ddkit library is not installed: install the package ddkit-command"}\n')
        return 0
    if argv[1:] == ['list']:
        answer = METHODS
    elif len(argv) == 3 and argv[1] == 'call' and argv[2] in METHODS:
        answer = call(argv[2], sys.stdin.buffer.read(INPUT_MAX + 1))
    else:
        answer = {'error': 'usage: luci.ddkit list | luci.ddkit call <%s>' % '|'.join(METHODS)}
    sys.stdout.write(jsontext.dumps(answer) + '\n')
    return 0


def call(method, data):
    """The answer to one call: an object, {"error": ...} when the request is refused."""
    from ddkit import UsageError
    request = parsed(data)
    if isinstance(request, str):
        return {'error': request}
    try:   # the command's own modules: the package ddkit-command (with ddkit-ddns)
        from ddkit import choice, updater  # noqa: F401
    except ImportError:
        return {'error': 'the ddkit command is not installed: install the package ddkit-command'}
    try:
        if method == 'providers':
            from ddkit import choice, updater
            return choice.catalog(updater.COMMON)
        if method == 'status':
            return status()
        if method == 'import':
            return imported(request)
        section = checked_section(request)
    except UsageError as e:
        return {'error': str(e)}
    if method == 'check':
        code, lines = run(['--uci', section, '--check'])
        return {'exit_status': code, 'lines': lines}
    code, lines = run(['--uci', section])
    shown = json_array(run(['--uci', section, '--status', '--json'], both=False)[1])
    outcomes = [record.get('outcome') for record in shown if isinstance(record, dict)]
    outcome = min(outcomes, key=lambda o: WORST.index(o) if o in WORST else 0) if outcomes else None
    return {'exit_status': code, 'outcome': outcome, 'lines': lines}


def imported(request):
    """ddkit --import-ddns of ddns-scripts' file beside the UCI file: {services: how many service
    sections it has (0: none, or no such file), exit_status, lines}; written only when dry_run is
    false, sections of the same name replaced only when force is true."""
    from ddkit import UsageError, needs_package, settings, uci
    from ddkit.native import os
    source = os.path.join(os.path.dirname(settings.uci_path(TOOL)), 'ddns')
    if not os.path.lexists(source):
        return {'services': 0, 'exit_status': 0, 'lines': []}
    missing = needs_package('--import-ddns', 'ddns_import')   # ddkit-import, an optional package
    if missing is not None:   # the page shows what to install (services: the file's sections)
        try:
            count = len(uci.read(source))
        except UsageError as e:
            return {'error': str(e)}
        return {'services': count, 'exit_status': missing.exit_status, 'lines': [str(missing)]}
    from ddkit import ddns_import
    try:
        count = sum(1 for kind, _, _ in uci.read(source) if kind == ddns_import.SERVICE)
    except UsageError as e:
        return {'error': str(e)}
    argv = ['--import-ddns', source] + (['--dry-run'] if request.get('dry_run') is not False else []) + \
        (['--force'] if request.get('force') is True else [])
    code, lines = run(argv, main=ddns_import.main)
    if '--dry-run' not in argv and code == 0 and any(line.startswith('Wrote ') for line in lines):
        lines.append(reload_service())
    return {'services': count, 'exit_status': code, 'lines': lines}


def reload_service():
    """Tell procd that ddkit's UCI file changed, as LuCI's Save & Apply does (the service's reload
    trigger then runs the records enabled now); what became of it, as a line."""
    from ddkit import proc
    event = '{"type": "config.change", "data": {"package": "%s"}}' % TOOL
    try:
        code, _, err = proc.run(['ubus', 'call', 'service', 'event', event], timeout=10, limit=4096)
    except (OSError, TimeoutError) as e:
        code, err = None, str(e)
    if code == 0:
        return 'The ddkit service reloads its records now.'
    return 'The ddkit service was not told (%s): /etc/init.d/%s reload' % ((err or 'exit %s' % code).strip()[:200], TOOL)


def parsed(data):
    """The request's JSON object, or why it is refused."""
    from ddkit import jsontext
    if len(data) > INPUT_MAX:
        return 'the request is larger than %d bytes' % INPUT_MAX
    try:
        request = jsontext.loads(data.decode('utf-8')) if data.strip() else {}
    except (ValueError, UnicodeDecodeError):
        return 'the request is not a JSON object'
    return request if isinstance(request, dict) else 'the request is not a JSON object'


def checked_section(request):
    """The section a request names, once it is a UCI name of a `config ddkit` section of the file;
    else a UsageError."""
    from ddkit import UsageError, settings, uci
    section = request.get('section')
    if not isinstance(section, str) or len(section) > 64 or not uci.valid(section, name=True):
        raise UsageError('section must be the name of a section of the UCI file (letters, digits and _)')
    path = settings.uci_path(TOOL)
    sections = uci.read(path)
    found = [kind for kind, name, _ in sections if name == section]
    anonymous = uci.anonymous(sections, section)
    if anonymous and not found:
        found = [anonymous[0]]
    if found[:1] != [TOOL]:
        raise UsageError('no %s section %s in %s' % (TOOL, section, path))
    return section


def status():
    """Every enabled record's kept status, each with its section as LuCI names it (an anonymous one
    by its cfgXXXXXX id); what could not be read, as lines."""
    from ddkit import UsageError, settings, uci
    _, printed, problems = run(['--status', '--json', '--all'], both=False)
    records = json_array(printed)
    if not any(isinstance(r, dict) and str(r.get('section')).startswith('@') for r in records):
        return {'records': records, 'problems': problems}   # every section named: the file not read again
    try:
        sections = uci.read(settings.uci_path(TOOL))
    except UsageError:
        sections = []
    ids = {}
    for count, (kind, name, _) in enumerate(sections, 1):
        if kind == TOOL and name is None:
            ids['@%s[%d]' % (kind, sum(1 for k, _, _ in sections[:count - 1] if k == kind))] = \
                uci.anonymous_id(count, kind)
    for record in records:
        if isinstance(record, dict) and record.get('section') in ids:
            record['section'] = ids[record['section']]
    return {'records': records, 'problems': problems}


def json_array(printed):
    """The JSON array a --status --json run printed, else []."""
    from ddkit import jsontext
    try:
        found = jsontext.loads('\n'.join(printed)) if printed else []
    except ValueError:
        return []
    return found if isinstance(found, list) else []


def run(argv, both=True, main=None):
    """(exit status, lines) of the ddkit command run here with argv: what it printed on stdout and
    stderr, in the order written; not both: (exit status, stdout's lines, stderr's lines). main: the
    command's code that takes argv (ddkit.ddns_import's for --import-ddns), else the records' run."""
    from ddkit import choice, updater
    out = io.StringIO()
    err = out if both else io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv, tool=TOOL) if main else updater.main(argv=argv, tool=TOOL, choice=choice)
    finally:
        sys.stdout, sys.stderr = saved
    if not both:   # a JSON answer is taken whole; the lines beside it, bounded
        return code, out.getvalue().splitlines(), bounded(err.getvalue())
    return code, bounded(out.getvalue())


def bounded(text):
    """text's non-blank lines, at most LINES_MAX of LINE_MAX characters each."""
    lines = [line[:LINE_MAX] for line in text.splitlines() if line.strip()]
    if len(lines) > LINES_MAX:
        lines = lines[:LINES_MAX] + ['(%d more lines)' % (len(lines) - LINES_MAX)]
    return lines

