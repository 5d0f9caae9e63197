import { ValueError } from '../errors.js';
import { iriProblem, preview } from './validate.js';

/** The parts of a URL as Python's `urlsplit` sees them, so normalization matches the reference. */
interface UrlParts {
  scheme: string;
  netloc: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

const URL_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/su;

function splitUrl(address: string): UrlParts | undefined {
  const m = URL_PARTS.exec(address);
  if (!m) return undefined;
  return { scheme: m[1]!, netloc: m[2], path: m[3]!, query: m[4], fragment: m[5] };
}

function joinUrl(p: UrlParts): string {
  let url = `${p.scheme}:`;
  if (p.netloc !== undefined) url += `//${p.netloc}`;
  url += p.path;
  if (p.query !== undefined) url += `?${p.query}`;
  if (p.fragment !== undefined) url += `#${p.fragment}`;
  return url;
}

/**
 * Lowercases the scheme and the host part, strips trailing `/` from the path, and keeps the
 * path's case, the query and the fragment, so trivially different spellings of one base address
 * yield one string (`http://LocalHost:8000/` and `http://localhost:8000` are one Service). An
 * empty query or fragment is dropped with its `?` or `#`, as Python's `urlunsplit` does, so the
 * reference mints the same Service IRI.
 * @throws ValueError when `address` is not an absolute URL.
 */
export function normalizeAddress(address: string): string {
  const parts = typeof address === 'string' ? splitUrl(address.trim()) : undefined;
  if (!parts) throw new ValueError(`address ${preview(address)} is not an absolute URL (expected e.g. "http://127.0.0.1:8000")`);
  return joinUrl({
    scheme: parts.scheme.toLowerCase(),
    netloc: parts.netloc?.toLowerCase(),
    path: parts.path.replace(/\/+$/u, ''),
    query: parts.query || undefined,
    fragment: parts.fragment || undefined,
  });
}

/**
 * True when `address` is an absolute http(s) URL with a host, made only of characters an IRI may
 * hold (the address becomes part of the Service IRI and of every endpoint URL).
 */
export function isHttpAddress(address: unknown): address is string {
  if (typeof address !== 'string') return false;
  const parts = splitUrl(address.trim());
  return !!parts && /^https?$/iu.test(parts.scheme) && !!parts.netloc && iriProblem(address.trim()) === undefined;
}

/** Normalizes `address` and checks that it is an absolute http(s) URL; throws ValueError otherwise. */
export function normalizeHttpAddress(address: unknown, what = 'address'): string {
  if (!isHttpAddress(address)) {
    throw new ValueError(`${what} ${preview(address)} is not an absolute http(s) URL (expected e.g. "http://127.0.0.1:8000")`);
  }
  return normalizeAddress(address);
}

/**
 * Normalizes the base address of a Service whose IRI is minted from it (see `mintServiceIri`).
 * An IPv6 literal host is refused: the reference would copy its `[` and `]` into the Service IRI,
 * where an IRI may not hold them, so no implementation could write that Service.
 * @throws ValueError when `address` is not an absolute http(s) URL or has an IPv6 literal host.
 */
export function normalizeServiceAddress(address: unknown): string {
  const normalized = normalizeHttpAddress(address);
  if (
    splitUrl(normalized)
      ?.netloc?.replace(/^[^@]*@/u, '')
      .startsWith('[')
  ) {
    throw new ValueError(
      `address ${preview(address)} has an IPv6 literal host, which cannot become part of a Service IRI: ` +
        'give the Service an address with a host name (e.g. "http://localhost:8000", or a name that resolves to the IPv6 address) ' +
        'or an IPv4 address; the server may still listen on the IPv6 host',
    );
  }
  return normalized;
}
