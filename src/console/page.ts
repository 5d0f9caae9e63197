/**
 * The console's HTML, rendered on the server: the whole page for the first load, and each
 * section alone for the live updates the event stream carries (the page script swaps them in).
 * Every value from the graph goes through {@link escapeHtml}; IRIs are shown as CURIEs where a
 * known prefix fits, with the full IRI in a `title`.
 */
import { compactIri } from '../iri/curie.js';
import { OperationStatus } from '../vocab/status.js';
import type { ActivityLine, PlantUpdate } from './plant-watch.js';
import type { OperationView, PlantView } from './plant-view.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe in HTML text and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => ESCAPES[c]!);
}

const e = escapeHtml;
const iri = (value: string | undefined): string => (value === undefined ? '–' : `<span title="${e(value)}">${e(compactIri(value))}</span>`);
const iris = (values: readonly string[]): string => (values.length === 0 ? '–' : values.map(iri).join(', '));
const text = (value: string | undefined): string => (value === undefined ? '–' : e(value));
/** A time the page script keeps showing as an age ("12 s ago"). */
const age = (value: string | undefined): string =>
  value === undefined ? 'never' : `<time datetime="${e(value)}" data-age>${e(value)}</time>`;
const resourcesAttr = (resources: readonly string[]): string => `data-resources="${e(resources.join(' '))}"`;

function table(caption: string, headers: readonly string[], rows: readonly string[], empty: string): string {
  const head = headers.map((h) => `<th scope="col">${h}</th>`).join('');
  const body = rows.length === 0 ? `<tr class="empty"><td colspan="${headers.length}">${empty}</td></tr>` : rows.join('\n');
  return `<table><caption>${caption}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function servicesSection(view: PlantView): string {
  const rows = view.services.map(
    (s) => `<tr ${resourcesAttr([s.resource])} data-key="${e(s.store + s.service)}">
  <td><span class="badge ${s.state}">${s.state}</span></td><td>${iri(s.resource)}</td><td>${iri(s.service)}</td>
  <td>${iris(s.classes)}</td><td>${text(s.address)}</td><td data-stale-after="${s.staleAfterMs}">${age(s.lastHeartbeat)}</td><td class="store">${e(s.store)}</td></tr>`,
  );
  return table('Services', ['State', 'Resource', 'Service', 'Class', 'Address', 'Heartbeat', 'Store'], rows, 'No Service is registered.');
}

function capabilitiesSection(view: PlantView): string {
  const rows = view.capabilities.map(
    (c) => `<tr ${resourcesAttr([c.resource])}><td>${iri(c.resource)}</td><td>${iri(c.capability)}</td><td>${iris(c.classes)}</td>
  <td>${iris(c.workflows)}</td><td>${iris(c.stateProperties)}</td><td class="store">${e(c.store)}</td></tr>`,
  );
  return table('Capabilities', ['Resource', 'Capability', 'Class', 'Workflows', 'State properties', 'Store'], rows, 'No Capability.');
}

function cancelButton(o: OperationView): string {
  if (o.status !== OperationStatus.QUEUED && o.status !== OperationStatus.RUNNING) return '';
  if (o.cancelRequested !== undefined) return `<span class="note">cancel requested by ${text(o.cancelledBy)}</span>`;
  return `<button type="button" data-cancel="${e(o.operation)}" data-store="${e(o.store)}" data-key="cancel ${e(o.store + o.operation)}"
  aria-label="Cancel ${e(compactIri(o.operation))}">Cancel</button>`;
}

function provenance(o: OperationView): string {
  const parts = [
    o.requestedBy && `requested by ${e(o.requestedBy)}`,
    o.createdAt && `created ${age(o.createdAt)}`,
    o.claimedAt && `claimed ${age(o.claimedAt)}`,
    o.finishedAt && `finished ${age(o.finishedAt)}`,
    o.deadline && `deadline ${e(o.deadline)}`,
    o.cancelledBy && `cancelled by ${e(o.cancelledBy)}`,
  ].filter(Boolean);
  return parts.length === 0 ? '–' : parts.join('<br>');
}

function openSection(view: PlantView): string {
  const rows = view.openOperations.map(
    (o) => `<tr ${resourcesAttr(o.resources)}><td><span class="badge ${e(o.status)}">${e(o.status)}</span></td><td>${iri(o.operation)}</td>
  <td>${iris(o.classes)}</td><td>${iris(o.resources)}</td><td>${provenance(o)}</td><td>${cancelButton(o)}</td><td class="store">${e(o.store)}</td></tr>`,
  );
  return table(
    'Queued and running Operations',
    ['Status', 'Operation', 'Class', 'Resource', 'Provenance', 'Action', 'Store'],
    rows,
    'Nothing queued or running.',
  );
}

/** A failure state (a JSON snapshot of the resource) folded away: long, and read only when wanted. */
function snapshot(value: string | undefined): string {
  return value === undefined ? '–' : `<details><summary>snapshot</summary><pre>${e(value)}</pre></details>`;
}

function recentSection(view: PlantView): string {
  const rows = view.recentOperations.map(
    (o) => `<tr ${resourcesAttr(o.resources)}><td><span class="badge ${e(o.status)}">${e(o.status)}</span></td><td>${iri(o.operation)}</td>
  <td>${iris(o.resources)}</td><td class="result">${text(o.result)}</td><td>${text(o.failureKind)}</td><td>${snapshot(o.failureState)}</td>
  <td>${iri(o.workflow)}</td><td>${provenance(o)}</td><td class="store">${e(o.store)}</td></tr>`,
  );
  const headers = [
    'Status',
    'Operation',
    'Resource',
    'Result or reason',
    'Failure kind',
    'Failure state',
    'Workflow',
    'Provenance',
    'Store',
  ];
  return table('Recently done and failed Operations', headers, rows, 'No Operation has finished yet.');
}

function workpiecesSection(view: PlantView): string {
  const rows = view.workpieces.map((w) => {
    const history = w.history.map((h) => `<li>${iri(h.possessor)} ${h.at ? age(h.at) : ''}${h.by ? ` by ${e(h.by)}` : ''}</li>`).join('');
    const resources = w.history.flatMap((h) => (h.possessor ? [h.possessor] : []));
    return `<tr ${resourcesAttr(resources)}><td>${iri(w.workpiece)}</td><td>${iri(w.possessor)}</td><td><ol class="history">${history}</ol></td>
  <td class="store">${e(w.store)}</td></tr>`;
  });
  return table('Workpieces', ['Workpiece', 'Possessed by', 'History (newest first)', 'Store'], rows, 'No workpiece is possessed.');
}

function activitySection(activity: readonly ActivityLine[]): string {
  if (activity.length === 0) return '<p class="empty">Nothing has changed while the console was watched.</p>';
  const items = activity.map(
    (a) => `<li ${resourcesAttr(a.resources)}>${age(a.time)} <span class="kind">${a.kind}</span> ${e(a.text)}</li>`,
  );
  return `<ol class="activity">${items.join('\n')}</ol>`;
}

function summarySection(update: PlantUpdate): string {
  const view = update.view;
  const error = update.error === undefined ? '' : `<p class="error" role="alert">Reading the plant failed: ${e(update.error)}</p>`;
  if (view === undefined) return `${error}<p>Reading the plant…</p>`;
  const count = (state: string) => view.services.filter((s) => s.state === state).length;
  const figures = [
    `${count('live')} live`,
    `${count('stale')} stale`,
    `${count('device-down')} device down`,
    `${count('unreachable')} unreachable`,
    `${view.openOperations.length} open Operations`,
  ];
  return `${error}<p>${figures.join(' · ')}. Read ${age(view.at)} from ${view.stores.map(e).join(', ')}.</p>`;
}

/** The sections of the page by element id: what an update replaces. */
export function renderSections(update: PlantUpdate): Record<string, string> {
  const view = update.view ?? {
    at: '',
    stores: [],
    services: [],
    capabilities: [],
    openOperations: [],
    recentOperations: [],
    workpieces: [],
  };
  return {
    summary: summarySection(update),
    services: servicesSection(view),
    open: openSection(view),
    recent: recentSection(view),
    workpieces: workpiecesSection(view),
    capabilities: capabilitiesSection(view),
    activity: activitySection(update.activity),
  };
}

/** Every resource the view names, for the filter's suggestions. */
function resourcesOf(view: PlantView | undefined): string[] {
  if (view === undefined) return [];
  return [...new Set([...view.services.map((s) => s.resource), ...view.capabilities.map((c) => c.resource)])].sort();
}

/** The whole page; `base` is the console's path prefix (ends with `/`), `filter` the resource filter it opens with. */
export function renderPage(update: PlantUpdate, options: { base: string; filter: string }): string {
  const sections = renderSections(update);
  const section = (id: string, title: string) =>
    `<section aria-labelledby="h-${id}"><h2 id="h-${id}">${title}</h2><div id="${id}" class="live">${sections[id]}</div></section>`;
  const options_ = resourcesOf(update.view)
    .map((r) => `<option value="${e(compactIri(r))}"></option>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plant console</title><link rel="stylesheet" href="${options.base}console.css"></head>
<body data-base="${e(options.base)}">
<header><h1>Plant console</h1>
<form role="search" id="filter-form"><label for="filter">Filter by resource</label>
<input id="filter" name="resource" list="resources" value="${e(options.filter)}" placeholder="e.g. plant:door1" autocomplete="off">
<datalist id="resources">${options_}</datalist></form>
<p id="connection" role="status" aria-live="polite">connecting…</p></header>
<main>
<div id="summary" class="live">${sections.summary}</div>
<p id="notice" role="status" aria-live="polite"></p>
${section('services', 'Services')}
${section('open', 'Queued and running')}
${section('recent', 'Done and failed')}
${section('activity', 'Activity')}
${section('workpieces', 'Workpieces')}
${section('capabilities', 'Capabilities')}
</main>
<script src="${options.base}console.js" defer></script>
</body></html>`;
}

/** The login form: the browser's way in (see `console-auth.ts`). */
export function renderLogin(options: { base: string; failed: boolean }): string {
  const failed = options.failed ? '<p class="error" role="alert">That token was not accepted.</p>' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plant console: sign in</title><link rel="stylesheet" href="${options.base}console.css"></head>
<body><main><h1>Plant console</h1>${failed}
<form method="post" action="${options.base}login"><label for="token">Bearer token of this plant</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form></main></body></html>`;
}
