/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: no parser
 * package is installed (prom-client writes the format but does not read it). It follows
 * https://prometheus.io/docs/instrumenting/exposition_formats/ and throws on anything a Prometheus
 * server would refuse or that the format forbids: a malformed line, a bad metric or label name,
 * a bad escape, a value that is no Go float, a TYPE after its samples or given twice, a sample of
 * no declared family's name, a duplicate series, and histograms whose buckets are not cumulative
 * or lack `+Inf` or disagree with `_count`.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its HELP, TYPE and samples. */
export interface Family {
  name: string;
  help?: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;
const SUFFIXES: Record<string, readonly string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count'] };

/**
 * A value as Prometheus reads it, with Go's `strconv.ParseFloat`: decimals, and `NaN`, `Inf`,
 * `Infinity` in any case with an optional sign (prom-client writes `Nan`).
 */
export function parseValue(text: string, where: string): number {
  if (/^nan$/i.test(text)) return NaN;
  const inf = /^([+-]?)inf(?:inity)?$/i.exec(text);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (!FLOAT.test(text)) throw new Error(`${where}: ${JSON.stringify(text)} is not a float`);
  return Number(text);
}

function unescape(text: string, allowQuote: boolean, where: string): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && allowQuote) return '"';
    throw new Error(`${where}: bad escape \\${c}`);
  });
}

/** `{a="x",b="y"}` (already stripped of its braces) as a record. */
function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = /^([^=\s]+)="((?:[^"\\\n]|\\.)*)"(,?)/.exec(rest);
    if (!match) throw new Error(`${where}: bad label syntax at ${JSON.stringify(rest)}`);
    const [all, name, raw, comma] = match as unknown as [string, string, string, string];
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`${where}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`${where}: label ${name} given twice`);
    labels[name] = unescape(raw, true, where);
    rest = rest.slice(all.length);
    if (comma === '' && rest.length > 0) throw new Error(`${where}: missing comma before ${JSON.stringify(rest)}`);
  }
  return labels;
}

function parseSample(line: string, where: string): Sample {
  const match = /^([^\s{]+)(?:\{(.*)\})?[ \t]+(\S+)(?:[ \t]+(-?\d+))?$/.exec(line);
  if (!match) throw new Error(`${where}: not a sample line: ${JSON.stringify(line)}`);
  const [, name, labels, value] = match as unknown as [string, string, string | undefined, string];
  if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name ${JSON.stringify(name)}`);
  return { name, labels: labels === undefined ? {} : parseLabels(labels, where), value: parseValue(value, where) };
}

/** The family a sample name belongs to, among those declared. */
function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  const own = families.get(name);
  if (own) return own;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, -suffix.length));
    if (family && SUFFIXES[family.type]?.includes(suffix)) return family;
  }
  return undefined;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, `${family.name} le`), sample.value]);
    } else if (sample.name.endsWith('_count')) entry.count = sample.value;
  }
  for (const [key, { buckets, count }] of series) {
    const last = buckets.at(-1);
    if (last?.[0] !== Infinity) throw new Error(`${family.name} ${key}: no +Inf bucket last`);
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i]![0] <= buckets[i - 1]![0] || buckets[i]![1] < buckets[i - 1]![1])
        throw new Error(`${family.name} ${key}: buckets not increasing and cumulative`);
    }
    if (count !== last[1]) throw new Error(`${family.name} ${key}: _count ${count} is not the +Inf bucket ${last[1]}`);
  }
}

/**
 * Parses an exposition into its families, keyed by name.
 * @throws Error naming the line of the first violation of the format.
 */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const withSamples = new Set<string>();
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.trim() === '') return;
    const meta = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
    if (meta) {
      const [, keyword, name, rest = ''] = meta as unknown as [string, 'HELP' | 'TYPE', string, string | undefined];
      if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name ${JSON.stringify(name)}`);
      const family = families.get(name) ?? { name, type: 'untyped' as const, samples: [] };
      families.set(name, family);
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new Error(`${where}: second HELP for ${name}`);
        family.help = unescape(rest, false, where);
      } else {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${JSON.stringify(rest)}`);
        if (seen.has(`TYPE ${name}`)) throw new Error(`${where}: second TYPE for ${name}`);
        if (withSamples.has(name)) throw new Error(`${where}: TYPE for ${name} after its samples`);
        seen.add(`TYPE ${name}`);
        family.type = rest as Family['type'];
      }
      return;
    }
    if (line.startsWith('#')) return;
    const sample = parseSample(line, where);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`${where}: sample ${sample.name} of no declared family`);
    const id = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(id)) throw new Error(`${where}: duplicate series ${id}`);
    seen.add(id);
    withSamples.add(family.name);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/**
 * The value of the sample `name` whose labels include `labels`, summed over the matching
 * series; 0 when none matches (a labelled counter appears only once it counted).
 */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = familyOf(families, name);
  let sum = 0;
  for (const sample of family?.samples ?? []) {
    if (sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) sum += sample.value;
  }
  return sum;
}

/**
 * GETs `url` (a `/metrics` route), expects 200 with the exposition's content type, and parses it.
 * @throws Error when the answer is no valid exposition.
 */
export async function scrapeMetrics(url: string, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  const type = res.headers.get('content-type') ?? '';
  if (!/^text\/plain; version=0\.0\.4/.test(type)) throw new Error(`GET ${url} answered content type ${JSON.stringify(type)}`);
  return parsePrometheusText(await res.text());
}
