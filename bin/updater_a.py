#!/usr/bin/env python3
"""Keep one DNS record (A or AAAA) at DNS provider A (Cloudflare's API v4) equal to this host's public IP.

The provider `cloudflare` of the registry (ddkit.providers.cloudflare) fixed: every flag, file,
message and exit status of the original tool; `ddkit --provider cloudflare` runs the same records with
the same state files.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import updater  # noqa: E402
from ddkit.providers import cloudflare  # noqa: E402


def main(argv=None):
    return updater.main(cloudflare, argv, tool='updater_a')


if __name__ == '__main__':
    sys.exit(main())
