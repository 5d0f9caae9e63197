/**
 * Problems found in a sidecar configuration, each naming where the value came from and which
 * field it is, and the ValueError that lists all of them at once.
 */
import type { ErrorObject } from 'ajv';
import { ValueError } from '../errors.js';

/** Where a setting came from. */
export type ConfigSource =
  { kind: 'default' } | { kind: 'file'; file: string; dir: string } | { kind: 'env'; name: string } | { kind: 'flag'; key: string };

/** One problem: `<source>: <field>: <message> (got <value>)`. */
export interface ConfigIssue {
  source?: ConfigSource;
  /** Field path as users write it: `workflows[0].capabilityClass`; empty for the file as a whole. */
  field: string;
  message: string;
  /** Rendering of the offending value, already made safe (see {@link showValue}). */
  got?: string;
}

/** `config file door1.yaml`, `environment SIDECAR_PORT`, `command line` (flags), `default`. */
export function describeSource(source: ConfigSource): string {
  switch (source.kind) {
    case 'file':
      return `config file ${source.file}`;
    case 'env':
      return `environment ${source.name}`;
    case 'flag':
      return 'command line';
    default:
      return 'default';
  }
}

/** One issue as a line of the error message. */
export function formatIssue(issue: ConfigIssue): string {
  const where = issue.source ? `${describeSource(issue.source)}: ` : '';
  const got = issue.got === undefined ? '' : ` (got ${issue.got})`;
  const field = issue.field === '' ? '' : `${issue.field}: `;
  return `${where}${field}${issue.message}${got}`;
}

/** The ValueError thrown for a configuration with problems; lists every one. */
export function configError(issues: readonly ConfigIssue[]): ValueError {
  const lines = issues.map((issue) => `  - ${formatIssue(issue)}`);
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new ValueError(`invalid sidecar configuration (${count}):\n${lines.join('\n')}`);
}

// Fields whose values are never shown, whatever is wrong with them.
const SECRET_FIELD = /(^|\.)(password|token|tls)$|^outgoingTokens\.(default|byAddress)(\[|$)/iu;

/** Removes `user:password@` from URL-looking text, so credentials never reach a message. */
export function redactUserinfo(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@]*@/u, '$1<credentials>@');
}

/**
 * A short, single-line, log-safe rendering of a value for `(got ...)`: strings quoted and
 * escaped (control characters cannot break the message), long ones cut, URL credentials and
 * secret fields replaced.
 */
export function showValue(value: unknown, field = ''): string {
  if (SECRET_FIELD.test(field)) return '<redacted>';
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value !== 'string') return typeof value;
  const safe = redactUserinfo(value);
  return JSON.stringify(safe.length > 80 ? `${safe.slice(0, 77)}...` : safe);
}

/** `/workflows/0/name` -> `workflows[0].name` (ajv's JSON pointers as users write fields). */
export function fieldOfPointer(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/gu, '/').replace(/~0/gu, '~'));
  return joinField(parts);
}

/**
 * `['workflows', '0', 'name']` -> `workflows[0].name`. A key that is not a plain identifier
 * (an unknown key can hold anything) is shown quoted, so it cannot break the message.
 */
export function joinField(parts: readonly string[]): string {
  let out = '';
  for (const part of parts) {
    if (/^\d+$/u.test(part)) out += `[${part}]`;
    else if (!/^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/u.test(part)) out += `[${showValue(part)}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

function typeName(type: unknown): string {
  const names: Record<string, string> = {
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    object: 'a mapping',
    array: 'a list',
    null: 'null',
  };
  const list = Array.isArray(type) ? type : [type];
  return list.map((t) => names[String(t)] ?? String(t)).join(' or ');
}

/** The message of one ajv error, without field or source. */
export function ajvMessage(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be ${typeName(p.type)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'required':
      return 'is required';
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      const cost = a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The message for an unknown key (the field names it): suggests the closest known key. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  // Closest relative to length first, so "store.pasword" suggests "store.passwordFile" rather
  // than the equally distant but shorter "store.user".
  const ratio = (k: string, d: number): number => d / Math.max(k.length, key.length);
  const best = known.map((k) => ({ k, d: distance(key, k) })).sort((x, y) => ratio(x.k, x.d) - ratio(y.k, y.d))[0];
  const hint = best && best.d <= Math.max(2, Math.floor(key.length / 2)) ? `, did you mean "${best.k}"?` : '';
  return `unknown key${hint} (expected one of ${known.join(', ')})`;
}
