import { isIPv6 } from 'node:net';

/**
 * The IRI grammar of RFC 3987, as the stores' parsers apply it (Oxigraph refuses an update that
 * holds one IRI outside it, so an IRI accepted here but not there would fail as a store error
 * instead of a clear ValueError): `%` followed by two hex digits only, `[` `]` only around an IP
 * literal host, one `#`, a numeric port, private-use characters only in the query.
 */

const UCS =
  '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF\\u{10000}-\\u{1FFFD}\\u{20000}-\\u{2FFFD}\\u{30000}-\\u{3FFFD}\\u{40000}-\\u{4FFFD}' +
  '\\u{50000}-\\u{5FFFD}\\u{60000}-\\u{6FFFD}\\u{70000}-\\u{7FFFD}\\u{80000}-\\u{8FFFD}\\u{90000}-\\u{9FFFD}\\u{A0000}-\\u{AFFFD}' +
  '\\u{B0000}-\\u{BFFFD}\\u{C0000}-\\u{CFFFD}\\u{D0000}-\\u{DFFFD}\\u{E1000}-\\u{EFFFD}';
const PRIVATE = '\\uE000-\\uF8FF\\u{F0000}-\\u{FFFFD}\\u{100000}-\\u{10FFFD}';
const UNRESERVED = `A-Za-z0-9\\-._~${UCS}`;
const SUB_DELIMS = "!$&'()*+,;=";

/**
 * A component's grammar: `unit` matches one allowed unit (an allowed character or a
 * percent-encoded octet), `whole` a text made of them only. Every IRI written is checked, so the
 * common case is one `whole` test; the unit walk only finds where a bad text goes wrong.
 */
function units(chars: string): { unit: RegExp; whole: RegExp } {
  const unit = `(?:[${chars}]|%[0-9A-Fa-f]{2})`;
  return { unit: new RegExp(unit, 'uy'), whole: new RegExp(`^${unit}*$`, 'u') };
}

const COMPONENT = {
  userinfo: units(`${UNRESERVED}${SUB_DELIMS}:`),
  host: units(`${UNRESERVED}${SUB_DELIMS}`),
  path: units(`${UNRESERVED}${SUB_DELIMS}:@/`),
  query: units(`${UNRESERVED}${SUB_DELIMS}:@/?${PRIVATE}`),
  fragment: units(`${UNRESERVED}${SUB_DELIMS}:@/?`),
} as const;

/** Index (in `text`) of the first unit `component` does not allow, or -1. */
function firstBad(text: string, component: RegExp): number {
  let i = 0;
  while (i < text.length) {
    component.lastIndex = i;
    if (!component.test(text)) return i;
    i = component.lastIndex;
  }
  return -1;
}

function describeAt(text: string, at: number, where: string): string {
  const ch = String.fromCodePoint(text.codePointAt(at)!);
  const what = ch === '%' ? '"%" not followed by two hex digits' : `the character ${JSON.stringify(ch)}`;
  return `its ${where} holds ${what}, which RFC 3987 does not allow there`;
}

function check(text: string, component: keyof typeof COMPONENT): string | undefined {
  if (COMPONENT[component].whole.test(text)) return undefined;
  const at = firstBad(text, COMPONENT[component].unit);
  return at < 0 ? undefined : describeAt(text, at, component);
}

function authorityProblem(authority: string): string | undefined {
  const at = authority.indexOf('@');
  const userinfo = at < 0 ? '' : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const bracket = /^\[([^\]]*)\](.*)$/su.exec(hostPort);
  let host = hostPort;
  let port = '';
  if (bracket) {
    if (!isIPv6(bracket[1]!) && !/^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/u.test(bracket[1]!))
      return `its host [${bracket[1]}] is not an IPv6 address`;
    host = '';
    port = bracket[2]!.startsWith(':') ? bracket[2]!.slice(1) : bracket[2]!;
    if (bracket[2] !== '' && !bracket[2]!.startsWith(':')) return `its authority has ${JSON.stringify(bracket[2])} after the IP literal`;
  } else if (hostPort.includes(':')) {
    host = hostPort.slice(0, hostPort.indexOf(':'));
    port = hostPort.slice(hostPort.indexOf(':') + 1);
  }
  if (!/^\d*$/u.test(port)) return `its port ${JSON.stringify(port)} is not a number`;
  return check(userinfo, 'userinfo') ?? check(host, 'host');
}

/**
 * Explains why the text after the scheme's `:` is not valid RFC 3987 IRI syntax, or returns
 * undefined when it is. Characters that no part of an IRI allows are reported earlier by
 * `iriProblem`; this finds characters in the wrong part and malformed escapes, ports and hosts.
 */
export function iriSyntaxProblem(rest: string): string | undefined {
  const hash = rest.indexOf('#');
  const fragment = hash < 0 ? undefined : rest.slice(hash + 1);
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash);
  const q = beforeHash.indexOf('?');
  const query = q < 0 ? undefined : beforeHash.slice(q + 1);
  let path = q < 0 ? beforeHash : beforeHash.slice(0, q);
  if (path.startsWith('//')) {
    const end = path.indexOf('/', 2);
    const authority = end < 0 ? path.slice(2) : path.slice(2, end);
    path = end < 0 ? '' : path.slice(end);
    const problem = authorityProblem(authority);
    if (problem !== undefined) return problem;
  }
  return (
    check(path, 'path') ??
    (query === undefined ? undefined : check(query, 'query')) ??
    (fragment === undefined ? undefined : check(fragment, 'fragment'))
  );
}
