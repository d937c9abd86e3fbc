#!/usr/bin/env python3
"""Keep DNS records (A or AAAA) equal to this host's public IP at any provider of the registry
(ddkit.registry): each record names its provider (--provider, DDNS_PROVIDER, provider= in a config
file, option provider in a UCI section) and runs through the same update loop, with the same state
files, as a tool fixed to that provider (updater_a, updater_b).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import choice, updater  # noqa: E402


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if any(word == '--import-ddns' or word.startswith('--import-ddns=') for word in argv) and '--help' not in argv:
        from ddkit import needs_package
        missing = needs_package('--import-ddns', 'ddns_import')   # an optional package of its own
        if missing is not None:
            print('ddkit: %s' % missing, file=sys.stderr)
            return missing.exit_status
        from ddkit import ddns_import   # only then: a run of the records loads none of it
        return ddns_import.main(argv, tool='ddkit')
    if any(word in SERVICE_WORDS for word in argv):
        try:
            from ddkit import service   # only then: a run of the records loads none of it
        except ImportError:   # a router's packages may leave it out: their procd service runs the records
            print('ddkit: --install-service is for a PC, a NAS or a server; on OpenWrt the package\'s service '
                  'runs the records (/etc/init.d/ddkit)', file=sys.stderr)
            return 2
        return service.main(argv, tool='ddkit', script=service.code_of(__file__, __spec__))
    return updater.main(argv=argv, tool='ddkit', choice=choice)


SERVICE_WORDS = ('--install-service', '--uninstall-service')   # their options: ddkit.service


if __name__ == '__main__':
    sys.exit(main())
