'use strict';
'require view';
'require form';
'require ui';
'require rpc';
'require uci';
'require poll';
'require dom';

// Everything comes from the rpcd plugin luci.ddkit (it runs ddkit's own code) and uci ddkit.
// expect '' keeps the whole reply, so an {"error": ...} answer reaches the page; reject: a ubus
// failure (no plugin, access denied, timeout) is said, not taken for an empty answer.
const callProviders = rpc.declare({
	object: 'luci.ddkit',
	method: 'providers',
	expect: { '': {} },
	reject: true
});

const callStatus = rpc.declare({
	object: 'luci.ddkit',
	method: 'status',
	expect: { '': {} },
	reject: true
});

const callCheck = rpc.declare({
	object: 'luci.ddkit',
	method: 'check',
	params: [ 'section' ],
	expect: { '': {} },
	reject: true
});

const callUpdate = rpc.declare({
	object: 'luci.ddkit',
	method: 'update',
	params: [ 'section' ],
	expect: { '': {} },
	reject: true
});

// ddkit --import-ddns of /etc/config/ddns: a dry run unless dry_run is false; its services counted
const callImport = rpc.declare({
	object: 'luci.ddkit',
	method: 'import',
	params: [ 'dry_run', 'force' ],
	expect: { '': {} },
	reject: true
});

// the common settings shown beside the provider's own; the others go to the Advanced tab
const GENERAL = [ 'zone_name', 'record_name', 'record_type', 'ip_source' ];

// the grid shows these of a record; the rest only in its Edit dialog
const IN_GRID = [ 'enabled', 'provider', 'record_name', 'record_type' ];

const OUTCOMES = {
	'unchanged': [ _('unchanged'), 'label ddkit-outcome' ],
	'updated': [ _('updated'), 'label ddkit-outcome success' ],
	'created': [ _('created'), 'label ddkit-outcome success' ],
	'failed': [ _('failed'), 'label ddkit-outcome warning' ],
	'no-ip': [ _('no-ip'), 'label ddkit-outcome warning' ],
	'removed': [ _('removed'), 'label ddkit-outcome notice' ],
	'never': [ _('never'), null ]
};

// a line's name in the status table (ddkit's status says ct, cm, cu or default)
const LINES = {
	'ct': _('China Telecom'),
	'cm': _('China Mobile'),
	'cu': _('China Unicom'),
	'default': _('default')
};

// E() sets a lone string as innerHTML: whatever ddkit or a provider said goes in as a text node
function text(tag, attrs, value) {
	return E(tag, attrs || {}, [ (value == null) ? '' : String(value) ]);
}

function localTime(epoch) {
	if (epoch == null)
		return _('never');

	const d = new Date(epoch * 1000);

	return '%04d-%02d-%02d %02d:%02d:%02d'.format(d.getFullYear(), d.getMonth() + 1, d.getDate(),
		d.getHours(), d.getMinutes(), d.getSeconds());
}

// LuCI appends its stack trace to an error's message: the first line says what failed
function errorText(err) {
	return String((err && err.message) ? err.message : err).split('\n')[0];
}

// A line headed by a label in bold: a blank after it, but for a full-width colon (失败：), which has its own
function labelled(label, text) {
	return E('div', {}, [ E('strong', {}, label), label.endsWith('\uff1a') ? '' : ' ', String(text) ]);
}

// A failure's line often ends with its fix ("...; fix: ..." or "...; <the fix>"), which the Fix:
// line under it says whole: the fix is taken out of the line, said once.
function withoutFix(message, fix) {
	if (!message || !fix)
		return message;

	const at = message.lastIndexOf(fix);

	if (at > 0) {
		const before = message.slice(0, at).match(/^(.*?)\s*(?:;|--)\s*(?:fix:\s*)?$/s);

		if (before)
			return before[1] + message.slice(at + fix.length);
	}

	// the line's last part may be the fix's start: a shorter wording of it
	const cut = message.lastIndexOf('; ');
	const tail = message.slice(cut + 2).replace(/^fix:\s*/, '');

	return (cut > 0 && tail.length >= 12 && fix.startsWith(tail)) ? message.slice(0, cut) : message;
}

function list(value) {
	return Array.isArray(value) ? value : [];
}

// a label, help or summary of ddkit's catalog in the page's language: LuCI finds any string the
// app's translation holds, and it holds each of the catalog's
function translated(text) {
	return (text != null && text !== '') ? _(text) : text;
}

return view.extend({
	load() {
		return Promise.all([
			uci.load('ddkit'),
			callProviders().catch(err => ({ error: errorText(err) })),
			callStatus().catch(err => ({ error: errorText(err) })),
			L.resolveDefault(uci.changes(), {}),
			// what ddns-scripts has to import: a user who may not write is not offered it
			callImport(true, false).catch(() => null)
		]);
	},

	// --- the status table ---

	renderStatus(status) {
		const nodes = [];
		const problems = list(status.problems).slice();

		if (status.error)
			problems.unshift(status.error);

		if (problems.length)
			nodes.push(E('div', { 'class': 'alert-message warning' },
				problems.map(line => text('p', {}, line))));

		const titles = [ _('Name'), _('Type'), _('Provider'), _('Line'), _('Outcome'),
			_('IP at the provider'), _('Last checked'), _('Last change') ];
		const table = E('table', { 'class': 'table' }, [
			E('tr', { 'class': 'tr table-titles' }, titles.map(t => E('th', { 'class': 'th' }, t)))
		]);

		const records = list(status.records);

		if (!records.length && !status.error)
			table.appendChild(E('tr', { 'class': 'tr placeholder' }, [
				E('td', { 'class': 'td center', 'colspan': titles.length },
					_('No enabled record yet: add one below, enable it, then Save & Apply.'))
			]));

		for (const r of records) {
			const outcome = OUTCOMES[r.outcome] || [ r.outcome, 'label ddkit-outcome' ];
			const cells = [
				E('span', {}, [ String(r.name ?? ''), r.section ? E('br') : '',
					r.section ? text('small', {}, _('section %s').format(r.section)) : '' ]),
				r.type, r.provider, (r.line != null) ? (LINES[r.line] || r.line) : '',
				outcome[1] ? text('span', { 'class': outcome[1], 'title': r.outcome }, outcome[0]) : outcome[0],
				r.ip ?? '', localTime(r.checked), localTime(r.changed)
			];

			// the Line column (cells[3]) never wraps: the browser makes it as narrow as its words allow
			table.appendChild(E('tr', { 'class': 'tr' }, cells.map((cell, i) =>
				(cell instanceof Node)
					? E('td', { 'class': 'td', 'data-title': titles[i] }, [ cell ])
					: text('td', { 'class': (i == 3) ? 'td nowrap' : 'td', 'data-title': titles[i] }, cell))));

			// a failure says what went wrong and what to do, in its own row under the record
			if (r.outcome == 'failed' && (r.message || r.fix))
				table.appendChild(E('tr', { 'class': 'tr ddkit-failure' }, [
					E('td', { 'class': 'td', 'colspan': titles.length }, [
						r.message ? labelled(_('Failed:'), withoutFix(String(r.message), r.fix ? String(r.fix) : null)) : '',
						r.fix ? labelled(_('Fix:'), String(r.fix)) : ''
					])
				]));
		}

		nodes.push(table);

		return nodes;
	},

	refreshStatus() {
		this.statusAt = Date.now();

		return callStatus()
			.catch(err => ({ error: errorText(err) }))
			.then(status => dom.content(this.statusNode, this.renderStatus(status)));
	},

	// --- Check and Update now ---

	// The plugin runs a record as /etc/config/ddkit holds it: one added or renamed in this page
	// and not applied yet is not there.
	notApplied(section_id) {
		if (!this.applied.has(section_id))
			return true;

		return L.resolveDefault(uci.changes(), {}).then(changes =>
			list(changes.ddkit).some(c => (c[0] == 'add' || c[0] == 'rename') && c[1] == section_id));
	},

	showLines(title, reply, extra) {
		const body = [];

		if (reply.error)
			body.push(text('div', { 'class': 'alert-message warning' }, reply.error));

		if (extra)
			body.push(extra);

		if (Array.isArray(reply.lines))
			body.push(E('pre', { 'class': 'ddkit-lines' }, [ reply.lines.join('\n') ]));

		if (reply.exit_status != null)
			body.push(text('p', {}, _('Exit status: %d').format(reply.exit_status)));

		body.push(E('div', { 'class': 'right' }, [
			E('button', { 'class': 'btn', 'click': ui.hideModal }, _('Close'))
		]));

		ui.showModal(title, body);
	},

	runRecord(section_id, what, title) {
		return Promise.resolve(this.notApplied(section_id)).then(pending => {
			if (pending)
				return this.showLines(title, {
					error: _('Record %s is not saved yet: save first (Save & Apply), then try again.').format(section_id)
				});

			return what(section_id)
				.catch(err => ({ error: errorText(err) }))
				.then(reply => {
					let extra = null;

					if (reply.outcome) {
						const outcome = OUTCOMES[reply.outcome] || [ reply.outcome, 'label ddkit-outcome' ];
						extra = E('p', {}, [ _('Outcome:'), ' ',
							text('span', { 'class': outcome[1] || '' }, outcome[0]) ]);
					}

					this.showLines(title, reply, extra);
				});
		});
	},

	handleCheck(section_id, ev) {
		return this.runRecord(section_id, callCheck, _('Check of %s').format(section_id));
	},

	handleUpdate(section_id, ev) {
		return this.runRecord(section_id, callUpdate, _('Update of %s').format(section_id))
			.then(() => this.refreshStatus());
	},

	// --- the import of ddns-scripts' services ---

	// The import writes /etc/config/ddkit itself: this page's changes not applied yet would be
	// applied over it, so they are saved or reverted first. Its dry run is shown, then it runs on
	// confirmation; the page is loaded again afterwards, as the file changed under it.
	handleImport(ev) {
		const title = _('Import of ddns-scripts\' services');

		return L.resolveDefault(uci.changes(), {}).then(changes => {
			if (list(changes.ddkit).length)
				return this.showLines(title, {
					error: _('Save or revert the changes of this page first: the import writes /etc/config/ddkit itself.')
				});

			const force = E('input', { 'type': 'checkbox', 'id': 'ddkit-import-force' });
			const preview = E('pre', { 'class': 'ddkit-lines' }, [ _('Loading…') ]);
			const dryRun = () => callImport(true, force.checked)
				.catch(err => ({ error: errorText(err) }))
				.then(reply => dom.content(preview, reply.error ? reply.error : list(reply.lines).join('\n')));

			force.addEventListener('change', dryRun);

			ui.showModal(title, [
				text('p', {}, _('What the import would write (nothing is written yet; secrets masked):')),
				preview,
				E('p', {}, [ force, ' ', E('label', { 'for': 'ddkit-import-force' },
					_('Replace the sections of the same name'))]),
				E('div', { 'class': 'right' }, [
					E('button', { 'class': 'btn', 'click': ui.hideModal }, _('Cancel')), ' ',
					E('button', {
						'class': 'btn cbi-button cbi-button-action important',
						'click': ui.createHandlerFn(this, 'runImport', force)
					}, _('Import'))
				])
			]);

			return dryRun();
		});
	},

	runImport(force, ev) {
		return callImport(false, force.checked)
			.catch(err => ({ error: errorText(err) }))
			.then(reply => {
				const body = [];

				if (reply.error)
					body.push(text('div', { 'class': 'alert-message warning' }, reply.error));
				if (Array.isArray(reply.lines))
					body.push(E('pre', { 'class': 'ddkit-lines' }, [ reply.lines.join('\n') ]));
				if (reply.exit_status != null)
					body.push(text('p', {}, _('Exit status: %d').format(reply.exit_status)));

				body.push(E('div', { 'class': 'right' }, [
					E('button', { 'class': 'btn', 'click': () => window.location.reload() }, _('Reload the page'))
				]));

				ui.showModal(_('Import of ddns-scripts\' services'), body);
			});
	},

	renderImport(ddns) {
		const count = (ddns && !ddns.error) ? Number(ddns.services) || 0 : 0;

		if (!count)
			return '';

		return E('div', { 'class': 'cbi-section' }, [
			E('h3', {}, _('Coming from ddns-scripts')),
			text('div', { 'class': 'cbi-section-descr' },
				_('This router has %d services of ddns-scripts (/etc/config/ddns). The import carries each over as a record of ddkit, under its own name; one that cannot be carried whole is written disabled, saying why. Stop ddns-scripts once the records run: both would update the same names.').format(count)),
			E('button', {
				'class': 'btn cbi-button cbi-button-apply',
				'click': ui.createHandlerFn(this, 'handleImport')
			}, _('Import from ddns-scripts…'))
		]);
	},

	// --- the form ---

	// One form option for a setting of ddkit, under the setting's own UCI name, titled with its
	// label; its help names the option too, as ddkit's messages and docs do. Defaults are
	// placeholders only: LuCI writes nothing for a value equal to an option's default, so every
	// option left empty must mean ddkit's default, and then nothing is written.
	addSetting(s, tab, st, optname, inherited) {
		let o;
		const choices = list(st.choices);
		const boolean = (choices.length == 2 && choices.includes('0') && choices.includes('1'));
		// a secret list (notify's URLs) is one password field of blank-separated values, which ddkit
		// reads as it reads a list: a DynamicList would show each value in the page
		const many = st.list && !st.secret;
		const widget = boolean ? form.Flag : many ? form.DynamicList : choices.length ? form.ListValue : form.Value;

		const title = '%h'.format(translated(st.label || st.name));
		o = tab ? s.taboption(tab, widget, optname, title) : s.option(widget, optname, title);
		o.ucioption = st.name;
		// a help ends with no full stop: the note on a line of its own, or it reads as the help's end
		o.description = [
			[ st.help ? '%h'.format(translated(st.help)) : '',
				(st.list && st.secret) ? _('Several: blanks between them.') : '' ].filter(part => part).join('<br />'),
			'<code>%h</code>'.format(st.name)
		].filter(part => part).join(' ');
		o.rmempty = true;

		// what ddkit uses when the option is left out: the defaults section's value, else its own
		const fallback = (inherited != null && inherited !== '' && !(Array.isArray(inherited) && !inherited.length))
			? inherited : st.default;
		const shown = Array.isArray(fallback) ? fallback.join(' ') : fallback;

		if (boolean) {
			// absent means "0" to ddkit: the only default LuCI may act on (it deletes a flag at it)
			o.default = (st.default != null) ? String(st.default) : '0';
		}
		else if (choices.length) {
			// a list's dropdown adds each choice picked as an item: the default is its placeholder.
			// One value: an empty entry, or LuCI would write the first choice into a record that set none
			if (many)
				o.placeholder = (shown != null) ? _('default (%s)').format(shown) : null;
			else if (!st.required)
				o.value('', (shown != null) ? _('default (%s)').format(shown) : _('(not set)'));

			choices.forEach(c => o.value(c));
		}
		else if (st.secret) {
			o.password = true;

			if (inherited)
				o.placeholder = _('(set in the defaults section)');
		}
		else if (shown != null) {
			o.placeholder = shown;
		}

		if (many) {
			// a UCI option of blanks or a list: ddkit reads both; compared as a list, it is
			// rewritten only when it changed
			o.load = function(section_id) {
				const v = form.Value.prototype.load.call(this, section_id);
				return (v == null) ? v : L.toArray(v);
			};
		}
		else if (!boolean) {
			// record_type (or notify) may be a UCI list (A, AAAA): the same as "A AAAA" to ddkit
			o.load = function(section_id) {
				const v = form.Value.prototype.load.call(this, section_id);
				return Array.isArray(v) ? v.join(' ') : v;
			};
		}

		if (choices.length && !boolean) {
			// a value the choices do not know is kept, not replaced by the first choice; a list's,
			// words or a UCI list, item by item
			uci.sections('ddkit').forEach(section => {
				const v = section[st.name];
				const values = many ? L.toArray(v) : [ Array.isArray(v) ? v.join(' ') : v ];

				values.forEach(value => {
					if (value != null && value !== '' && !choices.includes(value) && !(o.keylist || []).includes(value))
						o.value(value);
				});
			});
		}

		// the grid's text of a record's value (a secret is never in the grid: it is modalonly)
		if (!boolean && !st.secret)
			o.textvalue = function(section_id) {
				const v = this.cfgvalue(section_id);
				const value = (v != null && v !== '') ? v : shown;

				return (value != null) ? '%h'.format(Array.isArray(value) ? value.join(' ') : value) : null;
			};

		return o;
	},

	render([ , providers, status, changes, ddns ]) {
		const view = this;
		const data = {
			common: list(providers.common),
			service: list(providers.service),
			providers: list(providers.providers).filter(p => p && p.name)
		};
		const installed = {};
		const defaults = uci.sections('ddkit', 'defaults')[0] || {};
		let m, s, o;

		data.providers.forEach(p => installed[p.name] = p);

		// the records as /etc/config/ddkit holds them now: only these can be checked or run
		this.applied = new Set(uci.sections('ddkit', 'ddkit').map(section => section['.name']));
		list(changes.ddkit).forEach(c => {
			if (c[0] == 'add' || c[0] == 'rename')
				this.applied.delete(c[1]);
		});

		const providerOf = (section, section_id) =>
			section.formvalue(section_id, 'provider') || uci.get('ddkit', section_id, 'provider');

		// a record cannot do without these: set in the record, or in the defaults section
		const requiredCheck = (st, names) => function(section_id, value) {
			const name = providerOf(this.section, section_id);

			if (value != null && value !== '' && !(Array.isArray(value) && !value.length))
				return true;

			if (!st.required && !(names && installed[name] && list(installed[name].required).includes(st.name)))
				return true;

			const given = defaults[st.name];
			if (given != null && given !== '')
				return true;

			return _('%s needs it: set it here, or in the defaults section').format(name || '?');
		};

		// a record of a provider not installed here keeps its settings: only the installed
		// providers' forms are known, and hiding them must not delete what the others set
		const keepUnknown = function(section_id) {
			if (installed[providerOf(this.section, section_id)])
				return form.Value.prototype.remove.call(this, section_id);
		};

		m = new form.Map('ddkit');

		// without the providers' settings the form cannot be built right: shown, not edited
		if (providers.error)
			m.readonly = true;

		// a tab is only made for settings that exist: LuCI cannot render an empty one
		const tabOf = st => GENERAL.includes(st.name) ? 'general' : 'advanced';
		const advanced = data.common.some(st => tabOf(st) == 'advanced');
		const general = data.common.some(st => tabOf(st) == 'general');

		// --- one config ddkit section per record ---
		s = m.section(form.GridSection, 'ddkit', _('Records'),
			_('Each section is one name at one provider (record type "A AAAA": both its records). Check and Update now run a section as it was last applied.'));
		s.addremove = true;
		s.anonymous = false;
		s.nodescriptions = true;   // the help is in the Edit dialog, not over the grid
		s.addbtntitle = _('Add record');
		// the box beside Add record takes the new section's name, not the DNS name: say so in it
		s.renderSectionAdd = function(extra_class) {
			const el = form.GridSection.prototype.renderSectionAdd.apply(this, arguments);
			const name = el.querySelector('.cbi-section-create-name');

			if (name) {
				name.placeholder = _('Section name, e.g. home');
				name.title = _('A name for the new record\'s section: letters, digits and _ (e.g. home or nas_v6). The DNS name goes in the form that opens next.');
			}

			return el;
		};
		s.modaltitle = section_id => _('Record %s').format(section_id);
		s.tab('general', _('General'));
		if (advanced)
			s.tab('advanced', _('Advanced'));

		s.renderRowActions = function(section_id) {
			const td = form.GridSection.prototype.renderRowActions.call(this, section_id);
			// check and update are granted with write access to the page (its ACL's write part)
			const disabled = (L.hasViewPermission() === false) || null;

			td.lastElementChild.prepend(
				E('button', {
					'class': 'btn cbi-button cbi-button-neutral',
					'title': _('Walk every step of an update without changing anything'),
					'click': ui.createHandlerFn(view, 'handleCheck', section_id),
					'disabled': disabled
				}, _('Check')),
				E('button', {
					'class': 'btn cbi-button cbi-button-action',
					'title': _('Run this record now, and refresh the status'),
					'click': ui.createHandlerFn(view, 'handleUpdate', section_id),
					'disabled': disabled
				}, _('Update now')));

			return td;
		};

		for (const st of data.service) {
			o = this.addSetting(s, 'general', st, st.name);
			o.modalonly = IN_GRID.includes(st.name) ? null : true;   // null: the grid and the dialog
			o.editable = (o instanceof form.Flag);
			o.validate = requiredCheck(st);
		}

		o = s.taboption('general', form.ListValue, 'provider', _('Provider'),
			_('The DNS provider of this record: one of those installed on this router (each is a package, ddkit-NAME).') +
			' <code>provider</code>');
		o.rmempty = false;
		data.providers.forEach(p => o.value(p.name));
		uci.sections('ddkit', 'ddkit').forEach(section => {
			if (section.provider && !installed[section.provider])
				o.value(section.provider, _('%s (not installed)').format(section.provider));
		});
		o.onchange = function(ev, section_id) {
			// a setting required by one provider may be optional to the next
			this.section.children.forEach(c => c.triggerValidation && c.triggerValidation(section_id));
		};

		for (const p of data.providers) {
			o = s.taboption('general', form.DummyValue, '_summary_' + p.name, ' ');
			o.modalonly = true;
			o.depends('provider', p.name);
			o.cfgvalue = () => translated(p.summary) || '';

			for (const st of list(p.settings)) {
				o = this.addSetting(s, 'general', st, p.name + '__' + st.name);
				o.modalonly = true;
				o.depends('provider', p.name);
				o.validate = requiredCheck(st);
				o.remove = keepUnknown;
			}
		}

		for (const st of data.common) {
			o = this.addSetting(s, tabOf(st), st, st.name, defaults[st.name]);
			o.modalonly = IN_GRID.includes(st.name) ? null : true;
			o.validate = requiredCheck(st, true);
		}

		// --- config defaults: what every record shares unless it sets its own ---
		s = m.section(form.TypedSection, 'defaults', _('Defaults'),
			_('Settings every record inherits unless it sets its own. Options this page does not show (a provider\'s credentials written here by hand) are kept as they are.'));
		s.anonymous = true;
		s.addremove = !uci.sections('ddkit', 'defaults').length;
		if (general && advanced) {
			s.tab('general', _('General'));
			s.tab('advanced', _('Advanced'));
		}

		for (const st of data.common)
			this.addSetting(s, (general && advanced) ? tabOf(st) : null, st, st.name);

		// --- the page: status on top, the records below ---
		this.statusNode = E('div', { 'class': 'ddkit-status' }, this.renderStatus(status));

		const problems = [];
		if (providers.error)
			problems.push(text('div', { 'class': 'alert-message warning' }, providers.error));

		// LuCI's poll runs a new function at once: load() has just asked, so that turn is skipped
		this.statusAt = Date.now();
		poll.add(() => (Date.now() - this.statusAt < 20000) ? null : this.refreshStatus(), 30);

		return m.render().then(mapEl => E([], [
			// the outcome words as ddkit writes them (the theme's labels would capitalise them)
			E('style', {}, [ '.label.ddkit-outcome { text-transform: none; font-size: 12px; }' +
				'.ddkit-status .ddkit-failure .td { border-top: 0; padding-top: 0; }' +
				'.ddkit-status small { color: #888; }' +
				'.ddkit-lines { white-space: pre-wrap; max-height: 60vh; overflow: auto; }' ]),
			E('h2', {}, _('Dynamic DNS (ddkit)')),
			E('div', { 'class': 'cbi-map-descr' },
				_('Keeps DNS records at your providers equal to this router\'s address. The status is what the ddkit service\'s own runs kept: this page sends no DNS query.')),
			...problems,
			E('div', { 'class': 'cbi-section' }, [
				E('h3', {}, _('Status')),
				E('div', { 'class': 'cbi-section-descr' }, _('Refreshed every 30 seconds while this page is open.')),
				this.statusNode
			]),
			this.renderImport(ddns),
			mapEl
		]));
	}
});
