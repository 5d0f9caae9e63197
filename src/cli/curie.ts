import { ValueError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import { PLANT, PREFIXES } from '../vocab/namespaces.js';
import { UsageError } from './exit-codes.js';

/**
 * CURIEs on the command line (`plant:DoorOpeningCapability` for the full IRI) and in output.
 * The prefixes are the product's own (`cfc:`, `svc:`, `mes:`, the W3C ones) and `plant:`, the
 * example plant's.
 */
export const CLI_PREFIXES: Readonly<Record<string, string>> = Object.freeze({ ...PREFIXES, plant: PLANT.iri });

const CURIE = /^([A-Za-z][\w-]*):(.*)$/su;
// Local names written back as CURIEs: plain enough to read and to paste into a flag again.
const PLAIN_LOCAL = /^[\w-]+$/u;

/**
 * The IRI a flag value names: a CURIE with a known prefix is expanded, anything else must be
 * an absolute IRI.
 * @throws UsageError naming the flag, the value and the accepted forms.
 * @example expandIri('plant:door1', '--resource') // 'https://example.org/plant#door1'
 */
export function expandIri(value: string, flag: string): string {
  const text = value.trim();
  const m = CURIE.exec(text);
  const namespace = m ? CLI_PREFIXES[m[1]!] : undefined;
  const iri = namespace !== undefined && !m![2]!.startsWith('//') ? namespace + m![2]! : text;
  try {
    return assertIri(iri, flag);
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    const known = Object.keys(CLI_PREFIXES).map((p) => `${p}:`).join(', ');
    throw new UsageError(`${error.message} (expected an absolute IRI or a CURIE with one of the prefixes ${known})`, { cause: error });
  }
}

/**
 * The shortest CURIE for `iri` when a known namespace holds it and the rest is a plain name,
 * else the IRI in angle brackets.
 * @example compactIri('https://example.org/plant#door1') // 'plant:door1'
 */
export function compactIri(iri: string): string {
  let best: string | undefined;
  for (const [prefix, namespace] of Object.entries(CLI_PREFIXES)) {
    if (!iri.startsWith(namespace)) continue;
    const local = iri.slice(namespace.length);
    if (PLAIN_LOCAL.test(local) && (best === undefined || prefix.length + local.length + 1 < best.length)) best = `${prefix}:${local}`;
  }
  return best ?? `<${iri}>`;
}
