"""The fault matrix's rig for updater B (provider B: IAM token, DNS v2 recordsets, token cache)."""

import time

from faultkit import OLD, PASSWORD, RECORD, ZONE, Rig

DAY = 86400


class RigB(Rig):
    tool = 'updater_b'
    name = 'B'
    routes = {'token': 'get_token', 'zones': 'list_zones', 'records': 'list_records', 'read': 'get_record',
              'update': 'update_record', 'create': 'create_record'}
    ip_name = '.hw-wan_ip_%s.txt' % RECORD
    ids_name = '.hw-id_%s.txt' % RECORD
    auth_name = '.hw-token_%s.txt' % RECORD
    log_name = 'updater_b_%s.log' % RECORD
    token_names = (auth_name,)
    first_url_setting = 'DDNS_AUTH_URL'

    def __init__(self, box, state_dir, tmp):
        super().__init__(box, state_dir, tmp)
        self.provider = box.provider_b
        self.provider.password = PASSWORD
        self.zone_id = box.zone_b
        self.rid = None

    @property
    def secrets(self):
        """The password, and every token the fake handed out."""
        return [PASSWORD] + list(self.provider.issued)

    def add_old_record(self):
        return self.provider.add_record(self.zone_id, RECORD, 'A', [OLD], ttl=120)

    def env(self):
        return self.box.env_b(self.state_dir)

    def content(self):
        found = self.provider.find(RECORD)
        assert len(found) <= 1, 'duplicate recordsets: %s' % found
        return found[0]['records'][0] if found else None

    zones_key = 'zones'

    @staticmethod
    def zones_body(zone_id):
        return {'zones': [{'id': zone_id, 'name': ZONE + '.'}], 'metadata': {'total_count': 1}}

    @staticmethod
    def error_body(errors):
        """Provider B's DNS error shape holds one error: the first."""
        code, message = errors[0]
        return {'code': 'DNS.%04d' % (code % 10000), 'message': message}

    def credentials(self):
        return {'username': self.provider.username, 'password': PASSWORD,
                'project_name': self.provider.project}

    def credential_env(self):
        return ['DDNS_USERNAME', 'DDNS_PASSWORD', 'DDNS_PROJECT_NAME']

    def children_checked(self):
        """B's one child is the ping of its DoH fallback: it ran, and its argv holds no secret."""
        with open(self.argv_log) as f:
            assert 'ping' in f.read()

    def token_line(self):
        """(expiry, token) of the auth file, or None."""
        text = self.read(self.auth_name)
        if not text:
            return None
        expiry, _, token = text.strip().partition(' ')
        return int(expiry), token

    def token_line_ok(self, text):
        """A whole auth file: one line `<expiry> <token>` with a token the fake issued."""
        expiry, _, token = text.rstrip('\n').partition(' ')
        return text.endswith('\n') and text.count('\n') == 1 and expiry.isdigit() and token in self.provider.issued

    def token_files_private(self):
        super().token_files_private()
        text = self.read(self.auth_name)
        assert text is None or PASSWORD not in text

    def clock_checks(self, offset):
        """The token's expiry is the provider's Date plus one day."""
        expiry, token = self.token_line()
        date = self.provider.token_dates[token]
        assert expiry == date + DAY
        assert abs(date - (time.time() + offset)) < 120
