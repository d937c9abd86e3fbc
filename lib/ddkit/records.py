"""Which records a run of several names (--all: every enabled UCI section, or every [record] of the
--config file; --uci given more than once), each with its own values read when its turn comes, so one
bad section fails only its own record. ddkit.updater runs them one by one; they share the run's
lookups (ddkit.provider.Run): one zone lookup per zone, one current IP per (source, family), one token."""

from ddkit import UsageError, settings, uci


def plan(args, tool, table):
    """([(label, values)], shared): values() gives settings.load the record's own UCI or config file
    values; shared(), those every record starts from (the config file's lines before its first
    [record], the UCI file's `config defaults`), or shared is None."""
    known = {s.name: s for s in table}
    if 'all' in args.on and args.uci:
        raise UsageError('give --all (every enabled record) or --uci SECTION, not both')
    if 'all' in args.on and args.config:
        blocks = []
        shared = settings.read_config(args.config, known, records=blocks)
        if not blocks:
            raise UsageError('config file %s lists no [record]: add one [name] line before the settings '
                             'of each record, or run without --all' % args.config)
        return [(label, lambda own=own: {'file_values': block(shared, own)}) for label, own in blocks], \
            lambda: {'file_values': shared}
    path = settings.uci_path(tool)
    if 'all' in args.on:
        sections = uci.read(path)
        found = uci.enabled(path, tool, sections)
        if not found:
            raise UsageError('no enabled %s section in %s: set option enabled \'1\' in the sections to run'
                             % (tool, path))
        return [(ref, lambda ref=ref, options=options: {
            'uci_values': settings.uci_settings(path, ref, options, known, uci.section(path, ref, sections))})
            for ref, options in found], \
            lambda: {'uci_values': settings.uci_settings(path, uci.DEFAULTS, uci.defaults(sections), known)}
    return [(ref, lambda ref=ref: settings.uci_record(path, ref, known)) for ref in args.uci], None


def block(shared, own):
    """The values of a [record] block over the shared lines', with the names it gives itself
    (settings.OWN)."""
    values = dict(shared, **own)
    values[settings.OWN] = [name for name in own if not name.startswith('line:')]
    return values
