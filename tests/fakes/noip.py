"""Fake No-IP update service: the dyndns2 protocol (fakes.dyndns2 plays it) as No-IP documents its
differences (https://www.noip.com/integrate/request, https://www.noip.com/integrate/response): the
login is the account's e-mail (or user name), a client must name itself and its version in its
User-Agent or it is answered badagent, and the answers are No-IP's list only (good, nochg, nohost,
badauth, badagent, !donator, abuse, 911): a name that is not one of the account's is nohost."""

import re

from fakes.dyndns2 import Dyndns2

ANSWERS = ('good', 'nochg', 'nohost', 'badauth', 'badagent', '!donator', 'abuse', '911')
# "Company NameOfProgram/Version maintainer-contact@example.com": a program and its version at least
AGENT = re.compile(r'\S+/\d\S*')


class NoIp(Dyndns2):
    PROVIDER = LETTER = 'noip'   # the registry's provider it plays

    def __init__(self, username='owner@example.com', password='noip-pass-secret', tls_cert=None):
        super().__init__(username, password, tls_cert)
        self.agents = []   # the User-Agent of each update: No-IP identifies (and blocks) clients by it

    def _answer(self, req):
        agent = req.headers.get('user-agent', '')
        self.agents.append(agent)
        if not AGENT.search(agent):
            return 'badagent'
        code = super()._answer(req)
        return code if code.split()[0] in ANSWERS else 'nohost'
