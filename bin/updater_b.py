#!/usr/bin/env python3
"""Keep one DNS recordset (A or AAAA) at cloud provider B (Huawei Cloud's API) equal to this host's
public IP.

The provider `huaweicloud` of the registry (ddkit.providers.huaweicloud) fixed: every flag, file,
message and exit status of the original tool; `ddkit --provider huaweicloud` runs the same records
with the same state files.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import updater  # noqa: E402
from ddkit.providers import huaweicloud  # noqa: E402


def main(argv=None):
    return updater.main(huaweicloud, argv, tool='updater_b')


if __name__ == '__main__':
    sys.exit(main())
