#!/usr/bin/env python3
"""The IPv6 lookup and geolocation services of service.md 4.3, for a network namespace.

Runs as its own process (inside `ip netns exec`), answers with the source address it sees, and
appends every request to a JSON-lines log so the test can read the order and the source addresses.

  lookup6.py --host 2001:db8::1 --log FILE     prints "PORT <n>" once it listens

Routes: /json (JSON `ip` + `asn_name`, the test-ipv6.com shape), /processed (JSON `processedString`,
LibreSpeed's "<ip> - <isp>, <country>"), /text (plain text), /empty (JSON with an empty `ip`),
/html (a portal page, no address), /geo/<ip> (isp, region, country by operator prefix),
/ping/<uuid>[/fail] (a health check),
/hostile/<name> (a broken or hostile answer of HOSTILE, as application/json).
"""

import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fakes.base import FakeServer, Reply  # noqa: E402

OPERATORS = {'240e': ('China Telecom', 'CHINANET-BACKBONE', 'Guangdong'),
             '2409': ('China Mobile', 'CMNET', 'Beijing'),
             '2408': ('China Unicom', 'CHINA169-BACKBONE', 'Shanghai')}


def operator(address):
    return OPERATORS.get(address.split(':', 1)[0].lower(), ('Example ISP', 'EXAMPLE-NET', 'Nowhere'))

# hostile answers: JSON nested beyond any depth, numbers out of range, control characters in a field
# (each under the 16 KiB the selectors read of a lookup answer)
HOSTILE = {
    'nested': '{"ip": ' + '[' * 7000 + ']' * 7000 + '}',
    'unclosed': '{"ip": ' + '[' * 16000,
    'deep': '{"ip": "{client}", "asn_name": ' + '[' * 985 + ']' * 985 + '}',
    'numbers': '{"ip": 1e999, "asn": NaN, "asnlist": %s, "asn_name": Infinity}' % ('7' * 16000),
    'control': '{"ip": "{client}", "asn_name": "CHINANET\\u001b[2J\\r\\nOK: forged\\u0007"}',
}


class Lookup6(FakeServer):
    def __init__(self, host, log_path):
        super().__init__(host=host)
        self.log_path, self.log_lock = log_path, threading.Lock()
        self.route('json', 'GET', '/json', lambda req: Reply(200, {
            'ip': req.client, 'type': 'ipv6', 'subtype': '', 'via': '', 'padding': '', 'asn': '4134',
            'asnlist': '4134', 'asn_name': operator(req.client)[1], 'country': 'CN', 'protocol': 'HTTP/1.1'}))
        self.route('processed', 'GET', '/processed', lambda req: Reply(200, {
            'processedString': '%s - %s, CN' % (req.client, operator(req.client)[0]), 'rawIspInfo': ''}))
        self.route('text', 'GET', '/text', lambda req: Reply(200, text=req.client + '\n'))
        self.route('empty', 'GET', '/empty', lambda req: Reply(200, {'ip': ''}))
        self.route('html', 'GET', '/html', lambda req: Reply(200, text='<html><body>Log in</body></html>',
                                                             headers={'Content-Type': 'text/html'}))
        # a health-check service (the Healthchecks.io shape) reachable from the namespace: egress6's ping
        self.route('ping', 'GET', '/ping/[0-9a-f-]+(?:/fail|/start)?', lambda req: Reply(200, text='OK'))
        self.route('hostile', 'GET', '/hostile/([a-z]+)', lambda req, name: Reply(
            200, text=HOSTILE[name].replace('{client}', req.client),
            headers={'Content-Type': 'application/json'}))
        self.route('geo', 'GET', '/geo/([0-9a-fA-F:]+)', lambda req, ip: Reply(200, {
            'ip': ip, 'isp': operator(ip)[0], 'region': operator(ip)[2], 'country': 'China'}))

    def seen(self, req):
        # logged before the answer goes out: a test reads the log as soon as the tool has its answer
        with self.log_lock, open(self.log_path, 'a') as f:
            f.write(json.dumps({'route': req.route, 'path': req.path, 'client': req.client}) + '\n')


def main(argv):
    host, log_path = argv[argv.index('--host') + 1], argv[argv.index('--log') + 1]
    server = Lookup6(host, log_path).start()
    print('PORT %d' % server.port, flush=True)
    threading.Event().wait()


if __name__ == '__main__':
    main(sys.argv[1:])
