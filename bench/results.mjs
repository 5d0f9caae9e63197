// The one writer of benchmark and soak results: every run writes
// bench/results/<name>-<timestamp>.json (everything measured, kept per run) and
// bench/results/<name>-latest.md (the same as markdown tables, overwritten), and prints the
// markdown. A result has sections, each a title, optional key/value facts and rows of a table.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESULTS_DIR = new URL('./results/', import.meta.url);

/** `2025-11-22T08-19-05Z`: the run's time, usable in a file name. */
export function fileStamp(date = new Date()) {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-');
}

const cell = (value) => {
  if (value === undefined || value === null) return '';
  const text =
    typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : typeof value === 'string' ? value : JSON.stringify(value);
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
};

/** Rows (objects) as a markdown table whose columns are the union of their keys, in first-seen order. */
export function markdownTable(rows) {
  if (rows.length === 0) return '_no rows_\n';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [`| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`];
  for (const r of rows) lines.push(`| ${columns.map((c) => cell(r[c])).join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}

const facts = (meta = {}) =>
  Object.entries(meta)
    .map(([k, v]) => `- ${k}: ${cell(v)}`)
    .join('\n');

/** The markdown of a whole result: a heading, its facts, then each section's facts and table. */
export function resultMarkdown({ name, at, meta, sections }) {
  const parts = [`# ${name}`, `run at ${at}`];
  if (meta && Object.keys(meta).length > 0) parts.push(facts(meta));
  for (const s of sections) {
    parts.push(`## ${s.title}`);
    if (s.meta && Object.keys(s.meta).length > 0) parts.push(facts(s.meta));
    parts.push(markdownTable(s.rows).trimEnd());
  }
  return `${parts.join('\n\n')}\n`;
}

/**
 * Writes a result to bench/results/<name>-<timestamp>.json and <name>-latest.md, prints the
 * markdown, and returns both paths. `sections` is a list of `{ title, meta?, rows }`; `rows`
 * alone makes one section titled `name`. `ok: false` marks a run whose checks failed.
 * @example writeResults('load', { meta: { receivers: 3 }, rows: [{ name: 'served', ops_s: 42 }] })
 */
export function writeResults(name, { meta = {}, rows, sections, ok = true, at = new Date() }) {
  const all = sections ?? [{ title: name, rows: rows ?? [] }];
  const result = { name, at: at.toISOString(), ok, meta, sections: all };
  const markdown = resultMarkdown(result);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = new URL(`${name}-${fileStamp(at)}.json`, RESULTS_DIR);
  const md = new URL(`${name}-latest.md`, RESULTS_DIR);
  writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(md, markdown);
  console.log(`\n${markdown}`);
  console.log(`results: ${fileURLToPath(json)}\n         ${fileURLToPath(md)}`);
  return { json: fileURLToPath(json), markdown: fileURLToPath(md), result };
}
