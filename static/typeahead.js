// typeahead.js: suggestions under the header's search box, from /search.json.
//
// Progressive: without this script the box is a plain form that submits to
// /search.  With it, the input becomes an ARIA 1.2 combobox whose listbox
// shows the first matches (models, hardware, backends, run ids) as the
// visitor types; Down and Up move through them, Enter opens the one chosen
// (or submits the form as before when none is), Escape closes the list, a
// click opens a suggestion.  Every text is set with textContent, never as
// markup.  Requests wait for a pause in typing, need two characters, and a
// newer one cancels an older one, so a search costs a few requests, not
// one per key (search is rate-limited per address; a refusal shows
// nothing).
//
// The home page's picker fields (data-typeahead="model" or "hw") get the
// same list, of that kind only; choosing a suggestion fills the field
// with its slug instead of opening a page, and the form submits as
// before.
(function () {
	'use strict';

	var MIN_CHARS = 2;
	var PAUSE_MS = 250;
	var MAX_SHOWN = 8;

	// The page a result leads to, from its kind and slug.
	function target(item) {
		var s = encodeURIComponent(item.slug);
		if (item.kind === 'model') return '/m/' + s;
		if (item.kind === 'hw') return '/hw/' + s;
		return '/?backend=' + s;
	}

	// The suggestions of one /search.json answer: [{label, kind, href,
	// slug}]; for a picker field (only: "model" or "hw"), that kind's only.
	function suggestions(body, only) {
		var out = [];
		if (!only) {
			(body.runs || []).forEach(function (r) {
				out.push({ label: r.id, kind: 'Run', href: '/r/' + encodeURIComponent(r.id) });
			});
		}
		(body.results || []).forEach(function (h) {
			if (!only || h.kind === only)
				out.push({ label: h.name, kind: h.kind_label, href: target(h), slug: h.slug });
		});
		return out.slice(0, MAX_SHOWN);
	}

	function attach(input) {
		var form = input.form;
		var only = input.dataset.typeahead || null;
		var holder = only ? input.parentNode : form;
		var list = document.createElement('ul');
		var items = [];
		var active = -1;
		var timer = null;
		var pending = null;

		list.id = input.id + '-suggestions';
		list.className = 'suggestions';
		list.setAttribute('role', 'listbox');
		list.setAttribute('aria-label', 'Suggestions');
		list.hidden = true;
		holder.classList.add('has-suggestions');
		holder.appendChild(list);
		input.setAttribute('role', 'combobox');
		input.setAttribute('aria-autocomplete', 'list');
		input.setAttribute('aria-expanded', 'false');
		input.setAttribute('aria-controls', list.id);
		input.setAttribute('autocomplete', 'off');

		function choose(i) {
			active = i;
			items.forEach(function (li, k) {
				li.setAttribute('aria-selected', k === i ? 'true' : 'false');
			});
			if (i >= 0) {
				input.setAttribute('aria-activedescendant', items[i].id);
				items[i].scrollIntoView({ block: 'nearest' });
			} else {
				input.removeAttribute('aria-activedescendant');
			}
		}

		// A suggestion chosen: a picker field takes its slug, the search
		// box opens its page.
		function pick(li) {
			if (!only) {
				window.location.assign(li.dataset.href);
				return;
			}
			input.value = li.dataset.slug;
			close();
		}

		function close() {
			list.hidden = true;
			input.setAttribute('aria-expanded', 'false');
			choose(-1);
		}

		function show(found) {
			list.textContent = '';
			items = found.map(function (s, k) {
				var li = document.createElement('li');
				var kind = document.createElement('span');
				li.id = list.id + '-' + k;
				li.setAttribute('role', 'option');
				li.setAttribute('aria-selected', 'false');
				li.dataset.href = s.href;
				li.appendChild(document.createTextNode(s.label + ' '));
				kind.className = 'kind';
				kind.textContent = s.kind;
				li.appendChild(kind);
				li.addEventListener('mousedown', function (e) { e.preventDefault(); });
				li.dataset.slug = s.slug || '';
				li.addEventListener('click', function () { pick(li); });
				list.appendChild(li);
				return li;
			});
			active = -1;
			if (!items.length) {
				close();
				return;
			}
			list.hidden = false;
			input.setAttribute('aria-expanded', 'true');
			choose(-1);
		}

		function ask() {
			var q = input.value.trim();
			if (pending) pending.abort();
			pending = null;
			if (q.length < MIN_CHARS) {
				show([]);       // forgets the older query's suggestions
				return;
			}
			var ctl = new AbortController();
			pending = ctl;
			fetch('/search.json?q=' + encodeURIComponent(q), { signal: ctl.signal, headers: { Accept: 'application/json' } })
				.then(function (res) { return res.ok ? res.json() : null; })
				.then(function (body) {
					if (pending !== ctl) return;
					pending = null;
					if (body && input.value.trim() === q) show(suggestions(body, only));
					else show([]);
				})
				.catch(function () { /* cancelled, or offline: the form still works */ });
		}

		input.addEventListener('input', function () {
			clearTimeout(timer);
			timer = setTimeout(ask, PAUSE_MS);
		});
		input.addEventListener('keydown', function (e) {
			if (e.key === 'ArrowDown' && items.length) {
				e.preventDefault();
				list.hidden = false;     // reopens the list Escape closed
				input.setAttribute('aria-expanded', 'true');
				choose(active + 1 < items.length ? active + 1 : 0);
			} else if (e.key === 'ArrowUp' && items.length && !list.hidden) {
				e.preventDefault();
				choose(active > 0 ? active - 1 : items.length - 1);
			} else if (e.key === 'Enter' && active >= 0 && !list.hidden) {
				e.preventDefault();
				pick(items[active]);
			} else if (e.key === 'Escape' && !list.hidden) {
				e.preventDefault();
				close();
			}
		});
		input.addEventListener('blur', close);
	}

	if (!window.fetch || !window.AbortController) return;
	var box = document.getElementById('site-q');
	if (box && box.form) attach(box);
	document.querySelectorAll('input[data-typeahead]').forEach(function (field) {
		if (field.form) attach(field);
	});
})();
