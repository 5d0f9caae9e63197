/**
 * The console's style sheet and page script, served from the console itself (no CDN, so it works
 * without internet, and a strict Content-Security-Policy allows nothing else). Plain CSS and a
 * little plain script: the server renders every section; the script swaps in the sections each
 * server-sent event carries, keeps ages ticking, filters rows by resource and posts cancels.
 */

/** The style sheet: readable at a glance (status colours with text labels, never colour alone). */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #6e7781; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1rem 2rem; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline; border-bottom: 1px solid var(--muted); }
h1 { font-size: 1.3rem; margin: .6rem 0; } h2 { font-size: 1.05rem; margin: 1.2rem 0 .3rem; }
table { border-collapse: collapse; width: 100%; } caption { text-align: left; position: absolute; left: -9999px; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid color-mix(in srgb, var(--muted) 30%, transparent); }
th { font-weight: 600; } td.store, .note, .empty { color: var(--muted); } td.result { min-width: 14rem; max-width: 28rem; overflow-wrap: anywhere; }
.badge { display: inline-block; min-width: 5.5em; text-align: center; border-radius: .8em; padding: 0 .5em; font-weight: 600; color: #fff; }
.badge.live, .badge.done { background: var(--ok); } .badge.queued, .badge.running { background: #0969da; }
.badge.stale, .badge.device-down { background: var(--warn); } .badge.failed, .badge.unreachable { background: var(--bad); }
.error { color: var(--bad); font-weight: 600; } ol.history, ol.activity { margin: 0; padding-left: 1.2rem; }
.activity .kind { font-weight: 600; } [hidden] { display: none !important; }
details pre { white-space: pre-wrap; max-width: 32rem; overflow-wrap: anywhere; margin: .2rem 0; }
button { font: inherit; padding: .15rem .6rem; } :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
`;

/** The page script (an ES2020 script, no modules, no dependencies). */
export const CONSOLE_JS = `
'use strict';
(function () {
  var base = document.body.dataset.base;
  var filter = document.getElementById('filter');
  var connection = document.getElementById('connection');
  var notice = document.getElementById('notice');

  function ago(iso) {
    var s = Math.round((Date.now() - Date.parse(iso)) / 1000);
    if (isNaN(s)) return iso;
    if (s < 0) return 'in the future (clock skew)';
    if (s < 120) return s + ' s ago';
    if (s < 7200) return Math.floor(s / 60) + ' min ago';
    return Math.floor(s / 3600) + ' h ago';
  }
  function tick() {
    document.querySelectorAll('time[data-age]').forEach(function (t) { t.textContent = ago(t.getAttribute('datetime')); });
    // A heartbeat that grows older than the liveness rule allows reads stale at once, between two reads of the plant.
    document.querySelectorAll('td[data-stale-after]').forEach(function (cell) {
      var time = cell.querySelector('time');
      var badge = cell.parentNode.querySelector('.badge');
      if (!time || !badge || (badge.textContent !== 'live' && badge.textContent !== 'device-down')) return;
      if (Date.now() - Date.parse(time.getAttribute('datetime')) > Number(cell.getAttribute('data-stale-after'))) {
        badge.className = 'badge stale';
        badge.textContent = 'stale';
      }
    });
  }
  function expand(value) {
    // The filter matches a resource's IRI or its CURIE: compare on the local part after the prefix.
    return value.trim().replace(/^[a-z]+:(?!\\/\\/)/, '');
  }
  function matches(resources, value) {
    // A bare word matches part of a name as it is typed; a CURIE or an IRI names one resource.
    if (value === '') return true;
    if (!/^[a-z]+:/.test(value)) return resources.indexOf(value) >= 0;
    var local = expand(value);
    return resources.split(' ').some(function (r) { return r === value || r.endsWith('#' + local) || r.endsWith('/' + local); });
  }
  function applyFilter() {
    var wanted = filter.value.trim();
    document.querySelectorAll('[data-resources]').forEach(function (row) {
      row.hidden = !matches(row.getAttribute('data-resources'), wanted);
    });
    var url = new URL(location.href);
    if (filter.value.trim() === '') url.searchParams.delete('resource'); else url.searchParams.set('resource', filter.value.trim());
    history.replaceState(null, '', url);
  }
  function swap(sections) {
    // Keep keyboard focus on the element with the same key after a section is replaced.
    var active = document.activeElement;
    var key = active && active.getAttribute && active.getAttribute('data-key');
    Object.keys(sections).forEach(function (id) {
      var el = document.getElementById(id);
      if (el && el.innerHTML !== sections[id]) el.innerHTML = sections[id];
    });
    if (key && document.activeElement !== active) {
      var again = document.querySelector('[data-key="' + CSS.escape(key) + '"]');
      if (again) again.focus();
    }
    applyFilter();
    tick();
  }
  function connect() {
    var events = new EventSource(base + 'events');
    events.onopen = function () { connection.textContent = 'live'; };
    events.onmessage = function (message) { swap(JSON.parse(message.data)); };
    events.onerror = function () { connection.textContent = 'reconnecting…'; };
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-cancel]');
    if (!button) return;
    button.disabled = true;
    notice.textContent = 'Cancelling…';
    fetch(base + 'cancel', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Console-Request': '1' },
      body: JSON.stringify({ operation: button.dataset.cancel, store: button.dataset.store }),
      credentials: 'same-origin',
    }).then(function (response) {
      return response.json().then(function (body) {
        notice.textContent = response.ok ? 'Cancel ' + body.outcome + ': ' + body.operationIri : 'Cancel refused: ' + body.detail;
      });
    }).catch(function (error) { notice.textContent = 'Cancel failed: ' + error; button.disabled = false; });
  });
  document.getElementById('filter-form').addEventListener('submit', function (event) { event.preventDefault(); applyFilter(); });
  filter.addEventListener('input', applyFilter);
  applyFilter();
  tick();
  setInterval(tick, 250);
  connect();
})();
`;
