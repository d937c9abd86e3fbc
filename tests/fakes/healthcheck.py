"""Fake health-check service in the Healthchecks.io shape: GET /<uuid> (success), /<uuid>/fail,
/<uuid>/start; an unknown check answers 404 "not found", as hc-ping.com does."""

from fakes.base import FakeServer, Reply

UUID = '5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278'


class HealthCheck(FakeServer):
    """One check (UUID); `pings` lists what each ping said: 'success', 'fail' or 'start'."""

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.pings = []
        self.route('ping', 'GET', r'/([0-9a-f-]+)(/fail|/start)?', self.ping)

    @property
    def check_url(self):
        return '%s/%s' % (self.url, UUID)

    def ping(self, req, uuid, kind):
        if uuid != UUID:
            return Reply(404, text='not found')
        self.pings.append((kind or '/success')[1:])
        return Reply(200, text='OK')
