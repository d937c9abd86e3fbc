"""What the providers' API calls share, written once: the answers of a REST API told by their HTTP
status, the records of a name and the one of a line among them, the id an answer gives, and the
RRset (deSEC, Gcore: a name's addresses of a type kept together).

A provider imports it inside the functions that call its API (as it imports ddkit.http), so a run
that asks the provider nothing loads none of it. What its API does differently it states itself:
paths, fields, error codes, and the few functions a shape below reads through job.provider.
"""

from ddkit import Failure
from ddkit.provider import ALIBABA_NONCE_USED, Record, Stale, Zone, address_id, safe_id


# --- the answers of a REST API, by their HTTP status ----------------------------------------------

def json_of(answer, step, empty=False, kind=dict):
    """The JSON of a success (HTTP 2xx): of kind (an object, or a tuple of types), or {} for an answer
    without a body when empty allows one (a write's 204); anything else is a Failure."""
    from ddkit import http
    if empty and not answer.body.strip():
        return {}
    data = answer.nonempty().json()
    if not isinstance(data, kind):
        raise Failure.at(step, 'unexpected answer: %s' % http.snippet(answer.text), url=answer.where,
                         status=answer.status, kind='unexpected')
    return data


def error_json(answer):
    """An error answer's JSON object, or {} (an HTML error page, nothing)."""
    try:
        data = answer.json()
    except Failure:
        return {}
    return data if isinstance(data, dict) else {}


def refused(job, answer, step, said=None, code=None, stale=False, zone=None, fix=None, shown=', code %s'):
    """Raises the Failure of a REST answer that is no success, by its HTTP status, the API's words
    (said) and code logged: a 404 about stored ids raises Stale (stale: the zone or the record is
    gone, so the loop looks them up again), or is the zone the account does not have (zone: how the
    provider names it, 'domain %s'); a 429 says how long the API asks to wait. The provider's FIXES
    by status say what to do (its 404 fix is about the zone), unless the answer says more (fix);
    shown: how a message shows the code."""
    from ddkit import decimal, http
    status, fixes = answer.status, job.provider.FIXES
    if status == 404 and stale:
        job.log.info('%s: %s (HTTP 404)' % (step, said or 'not found'))
        raise Stale()
    if said or code:
        job.log.error('%s: HTTP %d%s: %s' % (step, status, shown % code if code else '', said or ''))
    what = said or http.snippet(answer.text) or 'no details'
    fields = dict(url=answer.where, status=status, code=code, provider_message=said or None)
    if status == 404 and zone:
        fix = fixes.get(404)
        raise Failure.at('find zone', 'no %s in this account (HTTP 404: %s); %s' % (
            zone % job.cfg.zone_name, what, fix), kind='not found', fix=fix, **fields)
    if status >= 500:
        raise Failure.at(step, 'the API failed (HTTP %d: %s); the next run tries again' % (status, what),
                         kind='server error', **fields)
    fix = fix or (fixes.get(status) if status != 404 else None)
    if status == 429:
        wait = decimal((answer.headers.get('retry-after') or '').strip())
        raise Failure.at(step, 'the API asks to wait%s (HTTP 429: %s)%s' % (
            ' %d seconds' % wait if wait is not None else '', what, '; ' + fix if fix else ''),
            kind='refused', fix=fix, **fields)
    raise Failure.at(step, 'the provider refused the request (HTTP %d%s: %s)%s' % (
        status, shown % code if code else '', what, '; ' + fix if fix else ''), fix=fix,
        kind='refused' if status >= 400 else 'unexpected', **fields)


# --- the answers of an API that names its errors by a code -----------------------------------------

def zone_missing(job, answer, zone, said, code=None, message=None, fix=None):
    """The Failure of an answer that the zone is not the account's (zone: how the provider names it,
    'domain %s'; said: what the answer said, its code), with the provider's fix for the code."""
    fix = fix or job.provider.FIXES.get(code)
    return Failure.at('find zone', 'no %s in this account (%s)%s' % (
        zone % job.cfg.zone_name, said, '; ' + fix if fix else ''), url=answer.where, status=answer.status,
        kind='not found', code=code, provider_message=message, fix=fix)


def code_refused(job, answer, step, code, message, zone=None, server=()):
    """The Failure of an answer refused with an error code, its fix the provider's for the code: the
    zone the account does not have (zone: how the provider names it), a server error (HTTP 5xx, or a
    code of the server's own faults), else refused; without a code, an unexpected answer."""
    from ddkit import http
    if zone:
        return zone_missing(job, answer, zone, code, code, message)
    fix = job.provider.FIXES.get(code)
    if code:
        why = 'the provider refused the request (HTTP %d, code %s)%s' % (answer.status, code, '; ' + fix if fix else '')
    else:
        why = 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text))
    return Failure.at(step, why, url=answer.where, status=answer.status, code=code, provider_message=message, fix=fix,
                      kind='server error' if answer.status >= 500 or code in server else
                      'refused' if code or 400 <= answer.status < 500 else 'unexpected')


def expected(job, step, code, message, gone=(), empty=(), exists=()):
    """True when an error code means nothing is there (empty: a listing of nothing, a delete's record
    gone already), so the call gives None; raises Stale for one of gone (the record or the zone of
    the stored ids is gone: the loop looks them up again) and Exists for one of exists (a create met
    the record); False for any other code, which the caller refuses."""
    from ddkit.provider import Exists
    if code is None or code not in gone and code not in empty and code not in exists:
        return False
    job.log.info('%s: error %s (%s)' % (step, code, message))
    if code in empty:
        return True
    raise Stale() if code in gone else Exists()


# --- Tencent Cloud API 3.0 ------------------------------------------------------------------------

def tc3_call(job, action, params, step, repeatable=True):
    """One Tencent Cloud API 3.0 call, a POST of the JSON params signed TC3-HMAC-SHA256 for the
    provider's SERVICE and VERSION with secret_id and secret_key: (the Response object, None, None), or
    (None, the error's code, its message)."""
    import time
    from ddkit import http, jsontext
    from ddkit.provider import host_header, tc3
    from ddkit.urls import split_url
    cfg, api = job.cfg, job.provider
    url = cfg.base_url + '/'
    payload = jsontext.dumps(params).encode('utf-8')   # what http.request sends for json_body=params
    headers = tc3(cfg.secret_id, cfg.secret_key, api.SERVICE, api.VERSION, host_header(url), action, payload,
                  int(time.time()), '/' + split_url(url)[3])
    answer = http.request('POST', url, step, headers=headers, json_body=params, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=repeatable)
    return (answer,) + tc3_answer(answer)


def tc3_answer(answer):
    """(the Response object, None, None) of a Tencent Cloud API 3.0 answer that is no error, else
    (None, its error's code, its message), bounded (None where the answer gives none); a Failure when
    the answer is none of the API's. https://cloud.tencent.com/document/api/1427/56192"""
    from ddkit import http
    data = answer.nonempty().json()
    response = data.get('Response') if isinstance(data, dict) else None
    if not isinstance(response, dict):
        raise Failure.at(answer.step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                         url=answer.where, status=answer.status,
                         kind='server error' if answer.status >= 500 else 'unexpected')
    error = response.get('Error')
    if error is None and answer.status < 300:
        return response, None, None
    error = error if isinstance(error, dict) else {}
    code = str(error['Code'])[:80] if isinstance(error.get('Code'), (str, int)) else None
    message = str(error['Message'])[:300] if isinstance(error.get('Message'), (str, int)) else None
    return None, code, message


def tc3_refused(answer, code, message, fix):
    """The Failure of a Tencent Cloud API 3.0 error answer no caller took: a server error (HTTP 5xx, an
    InternalError code) or the request refused, its code and fix said."""
    return Failure.at(answer.step, 'the provider refused the request (%s%s)%s' % (
        'HTTP %d, ' % answer.status if answer.status != 200 else '', 'code %s' % code if code else 'no error code',
        '; ' + fix if fix else ''), url=answer.where, status=answer.status, code=code, provider_message=message,
        fix=fix, kind='server error' if answer.status >= 500 or (code or '').startswith('InternalError')
        else 'refused')


# --- Alibaba Cloud ---------------------------------------------------------------------------------

def alibaba_answer(send, step, log, create):
    """(the Response, its JSON object, its error Code or None) of one Alibaba Cloud call (RPC or ACS3):
    send() signs the request anew (a new nonce) and sends it. A read or an update that ddkit.http sent
    again with the same nonce, which the API refuses once the first one arrived, is signed anew and
    sent once more; a create never (create). A Failure when the answer is no JSON object."""
    from ddkit import http
    for attempt in (1, 2):
        answer = send()
        data = answer.nonempty().json()
        if not isinstance(data, dict):
            raise Failure.at(step, 'unexpected answer: %s' % http.snippet(answer.text), url=answer.where,
                             status=answer.status, kind='unexpected')
        code = data.get('Code')
        code = str(code)[:80] if isinstance(code, (str, int)) and not isinstance(code, bool) else None
        if code != ALIBABA_NONCE_USED or create or attempt == 2:
            return answer, data, code
        log.info('%s: a request sent again repeated its nonce; signing it anew.' % step)


# --- zones ----------------------------------------------------------------------------------------

def listed_zones(fetch, pages, most):
    """account_zones: the zones of an account's listing, page by page (fetch(n): the Zones of page n,
    from 0, and whether another page follows), each name once; more than pages pages is a Failure
    asking for zone_name (most: what that many pages hold, '2000 domains')."""
    found = {}
    for n in range(pages):
        zones, more = fetch(n)
        found.update((zone.name, zone) for zone in zones if zone.name not in found)
        if not more:
            return list(found.values())
    raise Failure.at('find zone', 'the account has more than %s: set zone_name' % most, kind='unexpected',
                     fix='set zone_name')


def zone_named(job, zones, key, name_key, noun, fix):
    """choose_zone of a listing of zones by name: the one named zone_name (its id under key, its name
    under name_key); none is a Failure of 'find zone' (noun: what the provider calls a zone)."""
    name = job.cfg.zone_name
    found = [z for z in zones if safe_id(z.get(key)) and str(z.get(name_key, '')).lower().rstrip('.') == name]
    if not found:
        raise Failure.at('find zone', 'no %s %s in this account; %s' % (noun, name, fix), kind='not found', fix=fix)
    return Zone(safe_id(found[0][key]), name)


def site_pages(fetch, key, name_key, size, pages):
    """account_zones of an API that lists its zones (a cloud's sites) by id (under key) and name (under
    name_key), size a page: fetch(n) gives page n (from 0) and how many there are, or None."""
    def page(n):
        items, total = fetch(n)
        zones = [Zone(safe_id(z[key]), str(z.get(name_key, '')).lower().rstrip('.')) for z in items
                 if safe_id(z.get(key)) and z.get(name_key)]
        return zones, len(items) >= size and (total is None or (n + 1) * size < total)
    return listed_zones(page, pages, '%d sites' % (pages * size))


def counted(data, key, step):
    """(the objects listed under key, how many there are in all: TotalCount, or None) of a page."""
    from ddkit.provider import listing
    total = data.get('TotalCount')
    return listing(data, key, step), total if isinstance(total, int) and not isinstance(total, bool) else None


def domain_zones(names):
    """The Zones of domain names as an answer gives them (a zone named by its domain: its id is its
    name), lower-case, without the root's dot; a name unsafe as an id is none."""
    names = [str(name).lower().rstrip('.') for name in names if isinstance(name, str)]
    return [Zone(name, name) for name in names if name and safe_id(name)]


# --- records, and the one of a line ----------------------------------------------------------------

def address_of(record_id):
    """The address an address_id names, or None."""
    return record_id[3:].replace('-', ':') if record_id.startswith('ip-') else None


def address_record(job, held, raw, hint=None):
    """The Record of the job's line among the addresses held (of raw, the provider's own object): the
    address hint names, else the one in its line's operator prefix; None when none is."""
    from ddkit.ipcheck import OPERATORS, first_group, same_ip
    if hint is not None:
        match = [a for a in held if same_ip(a, hint)]
    else:
        match = [a for a in held if OPERATORS.get(job.line) and first_group(a) == OPERATORS[job.line]]
    return Record(address_id(match[0]), [match[0]], raw) if match else None


def zone_listing(job, zone, fetch, fresh=False):
    """The zone's records, listed once (fetch()) for every name and line of a run of several records;
    None for a run of one record, a fresh lookup, or a zone fetch found too large (None): then each
    name is listed on its own."""
    if not job.run.several or fresh:
        return None
    return job.shared(('zone records', job.provider.account(job.cfg), zone), fetch)


def on_line(found, line, value, tag=None, tagged=None):
    """The records of a line among those of the record's name and type (all of them for a record
    without lines, line None): the one made for it, when a record can carry a note (tag: its field,
    tagged: its text, 'ddkit line %s'), else one holding an address of the line's operator (value:
    the field of its address) and made for no other line."""
    from ddkit.ipcheck import OPERATORS, first_group
    if line is None:
        return found
    tags = {tagged % code for code in OPERATORS} if tag else ()
    return [r for r in found if tag and r.get(tag) == tagged % line] or [
        r for r in found if r.get(tag) not in tags and OPERATORS.get(line)
        and first_group(str(r.get(value))) == OPERATORS[line]]


def created(job, zone_id, create, about_record):
    """What create() answers; a refusal that may be about the record (about_record(failure): not about
    the credentials, the permission, the rate or the server) is looked at again, since which code an
    API gives a duplicate is not documented: when the record exists after all (made meanwhile), Exists,
    and the loop updates it."""
    from ddkit.provider import Exists
    try:
        return create()
    except Failure as e:
        if not about_record(e) or job.provider.find_record(job, zone_id, strict=True) is None:
            raise
        job.log.info('create record: %s; the record exists, so it is updated.' % (e.code or e.status))
        raise Exists()


def new_id(found, step, known=None):
    """The record id an answer gave (found: the caller's safe reading of it); an update whose answer
    says success without one keeps the record's own (known); else a Failure."""
    if not found and not known:
        raise Failure.at(step, 'the answer has no usable record id', kind='unexpected')
    return found or known


# --- an RRset: the addresses of a name and type, kept together ------------------------------------
# A record without lines is the RRset holding one address; a line's record is one address of it
# (SEVERAL), known again by its address (the id kept in the ids file) or by its operator's prefix.
# The provider says how its API holds one, through job.provider:
#   get_rrset(job, zone_id, step)  the RRset of the record's name and type, or None when there is none
#   is_rrset(rrset, cfg)           True when an answer is that RRset
#   entries(rrset, step)           what the RRset holds, as a write sends it back ([] for None)
#   address(entry)                 the address an entry holds, or None
#   entry(ip, like=None)           an entry holding ip, like's other fields kept
#   write_rrset(job, zone_id, found, entries, step)   the RRset set to hold these entries (found: as
#                                  read, None when there was none: it is made; []: it is deleted)
# and its Session keeps the RRset a run read last (rrset) and whether it read one (read).

def read_rrset(job, zone_id, step, fresh=False):
    """The RRset of the record's name and type, or None. A line's record is one address of an RRset
    other lines change too: always read afresh; a record without lines once a run."""
    cfg, api = job.cfg, job.provider
    key = None if fresh or job.line is not None else ('rrset', api.account(cfg), zone_id, cfg.record_name,
                                                      cfg.record_type)
    rrset = job.shared(key, lambda: api.get_rrset(job, zone_id, step))
    if rrset is not None and not api.is_rrset(rrset, cfg):
        raise Failure.at(step, 'unexpected answer: not the %s RRset of %s' % (cfg.record_type, cfg.record_name),
                         kind='unexpected')
    job.session.read, job.session.rrset = True, rrset
    return rrset


def held(job, rrset, step):
    """The addresses an RRset holds."""
    api = job.provider
    return [a for a in (api.address(e) for e in api.entries(rrset, step)) if a is not None]


def of_line(job, rrset, hint=None):
    """The Record of the job's line in an RRset (address_record)."""
    return address_record(job, held(job, rrset, 'find record'), rrset, hint)


def find_rrset_record(job, zone_id, strict=False):
    """find_record: the record of this name and type (of a line: its address in the RRset), or None."""
    found = read_rrset(job, zone_id, 'find record', fresh=strict)
    if found is None:
        return None
    if job.line is None:
        return Record(job.cfg.record_name, held(job, found, 'find record'), found)
    return of_line(job, found)


def read_rrset_record(job, zone_id, record_id, read=True, named=True):
    """read_record: the record the stored ids name. A line's id is its address (gone from the RRset:
    Stale); the record's own id, from before it had lines, is the default line's: the address of its
    operator, else the RRset's one address. A record without lines is read unless read is False (a
    write that keeps what it does not send, and says when the RRset is gone). named: a zone's id is
    its name, so the ids of another zone_name are stale (an id that is no name says nothing of it)."""
    cfg = job.cfg
    if named and zone_id != cfg.zone_name or job.line is None and record_id != cfg.record_name:
        raise Stale()   # ids of another zone_name or record: find ours again
    if job.line is None and not read:
        return Record(record_id)
    found = read_rrset(job, zone_id, 'read record', fresh=True)
    if found is None:
        raise Stale()
    if job.line is None:
        return Record(record_id, held(job, found, 'read record'), found)
    if record_id == cfg.record_name:
        now = held(job, found, 'read record')
        record = of_line(job, found) or (of_line(job, found, now[0]) if len(now) == 1 else None)
    else:
        record = of_line(job, found, address_of(record_id)) if address_of(record_id) else None
    if record is None:
        raise Stale()
    return record


def write(job, zone_id, found, entries, step):
    """The RRset set to hold these entries (the provider's write_rrset)."""
    job.provider.write_rrset(job, zone_id, found, entries, step)
    job.session.read = False   # it changed: a later step of this run reads it again


def as_read(job, zone_id, step):
    """The RRset as this run read it last (the stored ids' read, the lookup), else read now."""
    return job.session.rrset if job.session.read else read_rrset(job, zone_id, step, fresh=True)


def create_rrset_record(job, zone_id, ip):
    """create_record: a record without lines is the RRset, made holding ip alone; a line's is its
    address added to the RRset, which is made when there is none."""
    api = job.provider
    if job.line is None:
        write(job, zone_id, None, [api.entry(ip)], 'create record')
        return job.cfg.record_name
    found = as_read(job, zone_id, 'create record')
    write(job, zone_id, found, api.entries(found, 'create record') + [api.entry(ip)], 'create record')
    return address_id(ip)


def update_rrset_record(job, zone_id, record, ip):
    """update_record: a record without lines is the RRset holding ip alone (in its first entry, the
    rest of that entry kept); a line's is its address replaced in its own entry, the others kept."""
    from ddkit.ipcheck import same_ip
    api = job.provider
    now = api.entries(record.raw, 'update record')
    if job.line is None:
        write(job, zone_id, record.raw, [api.entry(ip, now[0] if now else None)], 'update record')
        return record.id
    old = record.content[0]
    write(job, zone_id, record.raw, [api.entry(ip, e) if api.address(e) and same_ip(api.address(e), old) else e
                                     for e in now], 'update record')
    return address_id(ip)


def delete_rrset_record(job, zone_id, record):
    """delete_record: a line's address taken out of the RRset (the RRset deleted with its last one);
    one gone already, or an RRset gone meanwhile, is success."""
    from ddkit.ipcheck import same_ip
    api = job.provider
    found = as_read(job, zone_id, 'delete record')
    old = record.content[0] if record.content else address_of(record.id)
    now = api.entries(found, 'delete record')
    kept = [e for e in now if not (old and api.address(e) and same_ip(api.address(e), old))]
    if found is None or len(kept) == len(now):
        job.log.info('delete record: %s is gone already.' % (old or record.id))
        return None
    try:
        write(job, zone_id, found, kept, 'delete record')
    except Stale:
        job.log.info('delete record: the RRset is gone already.')
    return None


def zone_read(data, cfg, noun='zone', key='name'):
    """[the zone's name] of a zone read by its name (zone_name; the answer's field key); another name is
    a Failure."""
    name = str(data.get(key) or cfg.zone_name).lower().rstrip('.')
    if name != cfg.zone_name:
        raise Failure.at('find zone', 'unexpected answer: the %s read is %s, not %s' % (noun, name[:80], cfg.zone_name),
                         kind='unexpected')
    return [name]


# --- a record of a listing, where no call reads one record ----------------------------------------

def first_named(job, listed, host, keys, id_of=safe_id, line=None, id_key='id', of_type=None):
    """The first of the listed records (objects) of this host and the record's type, on the job's line
    (line(r): True when r is on it), or None. keys: the answer's names of a record's host, type and
    value; id_of: a record id read from an answer (None: not one), under id_key; of_type(r): True when
    r is of the record's type, for an answer that numbers the types (its type key then None)."""
    host_key, type_key, value_key = keys
    for r in listed:
        typed = of_type(r) if of_type else str(r.get(type_key, '')).upper() == job.cfg.record_type
        if id_of(r.get(id_key)) and str(r.get(host_key, '')).lower() == host and typed and (line is None or line(r)):
            return Record(id_of(r[id_key]), [r.get(value_key)], r)
    return None


def stored_in_listing(job, zone_id, record_id, listing, first, id_of=safe_id, id_key='id', named=True):
    """read_record of an API with no call that reads one record: the record of the stored id in its
    name's listing (listing(): the records listed; first(records): the first of the name, type and
    line among them); Stale when the ids are of another zone_name (named: a zone's id is its name), or
    no such record is listed."""
    if named and zone_id != job.cfg.zone_name:
        raise Stale()   # ids of another domain (zone_name changed)
    found = first([r for r in listing() if id_of(r.get(id_key)) == record_id])
    if found is None:
        raise Stale()   # gone, or another record's id: find ours again
    return found


# --- an RPC API's forms, and answers in UTF-8 or GBK ----------------------------------------------

def form(params):
    """A form body of these parameters, each name and value percent-encoded (their UTF-8)."""
    from ddkit.urls import quote
    return '&'.join('%s=%s' % (quote(k), quote(v)) for k, v in params.items()).encode('ascii')


def gbk_text(body):
    """The text of a GBK body as far as this tool needs it: every ASCII byte as itself, every other
    character one U+FFFD. GBK's second byte may be an ASCII byte (0x5C, a backslash), so a character is
    its lead byte (0x81-0xFE) and the byte after it, never read byte by byte; its Chinese is not
    decoded: the CJK codecs are not in OpenWrt's python3-light, and what a run acts on (codes, ids,
    hosts, addresses, lines) is ASCII."""
    if body.isascii():
        return body.decode('ascii')
    out, at, size = [], 0, len(body)
    while at < size:
        run = at
        while run < size and body[run] < 0x80:
            run += 1
        out.append(body[at:run].decode('ascii'))
        if run < size:
            out.append('\ufffd')
            run += 2 if 0x81 <= body[run] <= 0xFE and run + 1 < size else 1
        at = run
    return ''.join(out)


def undecoded(message):
    """An API's message as a log line shows it: each run of its undecoded (GBK) characters one '…'
    (the error code and its fix say what to do); None when there is none."""
    if not isinstance(message, (str, int)) or isinstance(message, bool):
        return None
    out = []
    for char in str(message)[:300]:
        if char != '\ufffd':
            out.append(char)
        elif not out or out[-1] != '…':
            out.append('…')
    return ''.join(out) or None


def any_json(answer, step, utf8=True):
    """The answer's JSON read as UTF-8, or, where it is no UTF-8 (or utf8 is False: an API that
    answers in GBK), as GBK (gbk_text: its Chinese undecoded); not JSON: a Failure naming the step."""
    from ddkit import http, jsontext
    try:
        text = answer.body.decode('utf-8') if utf8 else gbk_text(answer.body)
    except UnicodeDecodeError:
        text = gbk_text(answer.body)
    try:
        return jsontext.loads(text)
    except ValueError:
        raise http.NotJson.at(step, '%s answered HTTP %d with no JSON: %s' % (
            answer.where, answer.status, http.snippet(text)), url=answer.where, status=answer.status,
            kind='server error' if answer.status >= 500 else 'not json')


def code_of(value):
    """An answer's code as text (a number or a word, bounded), or None."""
    text = str(value).strip()[:80] if isinstance(value, (str, int)) and not isinstance(value, bool) else ''
    return text or None


def coded_answer(job, answer, step, message_key, ok):
    """(the answer's object, its code, its message) of an API whose body carries a code beside the
    HTTP status, code None when it is ok with HTTP 200 (UTF-8 or GBK: any_json; the message as
    undecoded shows it). An answer with no code of the API's is judged by its HTTP status (refused:
    an HTTP 404 is a path the host does not serve); HTTP 200 without one is unexpected. Another code
    is the caller's to map."""
    from ddkit import http
    found = None   # an error page, or none: its HTTP status says what failed
    if answer.status == 200 or answer.body.strip():
        try:
            found = any_json(answer.nonempty(), step)
        except http.NotJson:
            if answer.status == 200:
                raise
    found = found if isinstance(found, dict) else {}
    code, message = code_of(found.get('code')), undecoded(found.get(message_key))
    if code == ok and answer.status == 200:
        return found, None, message
    if code in (None, ok):
        if answer.status == 200:
            raise Failure.at(step, 'unexpected answer (HTTP 200): %s' % http.snippet(answer.text), url=answer.where,
                             status=answer.status, kind='unexpected')
        refused(job, answer, step, message)
    return found, code, message
