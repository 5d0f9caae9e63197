import { PLANT, PREFIXES } from '../vocab/namespaces.js';
import { iriProblem } from './validate.js';

/**
 * CURIEs accepted wherever a person types an IRI (config files, flags) and used when one is
 * shown: the product's prefixes (`cfc:`, `svc:`, `mes:`, the W3C ones) and `plant:`, the
 * example plant's.
 */
export const CURIE_PREFIXES: Readonly<Record<string, string>> = Object.freeze({ ...PREFIXES, plant: PLANT.iri });

const PREFIX_LIST = Object.keys(CURIE_PREFIXES)
  .map((p) => `${p}:`)
  .join(', ');
const CURIE = /^([A-Za-z][A-Za-z0-9_.-]*):(.*)$/su;
const LOCAL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.~-]*$/u;
// Local names written back as CURIEs: plain enough to read and to paste into a flag again.
const PLAIN_LOCAL = /^[\w-]+$/u;

/**
 * Expands a CURIE with one of {@link CURIE_PREFIXES} and checks the result is an absolute IRI.
 * A value is read as a full IRI when its scheme is followed by `//` or is `urn:`; any other
 * `x:y` is a CURIE, so a misspelt prefix is reported instead of passing as an odd IRI scheme.
 * @example expandCurie('plant:door1') // { iri: 'https://example.org/plant#door1' }
 */
export function expandCurie(value: string): { iri: string } | { problem: string } {
  let iri = value;
  const m = CURIE.exec(value);
  if (m && !m[2]!.startsWith('//') && m[1]!.toLowerCase() !== 'urn') {
    const namespace = CURIE_PREFIXES[m[1]!];
    if (namespace === undefined)
      return { problem: `unknown prefix ${JSON.stringify(`${m[1]}:`)} (expected an IRI or one of ${PREFIX_LIST})` };
    if (!LOCAL_NAME.test(m[2]!))
      return { problem: `the local name after "${m[1]}:" may hold only A-Z a-z 0-9 _ . ~ - (expected e.g. "${m[1]}:Service")` };
    iri = namespace + m[2]!;
  }
  const problem = iriProblem(iri);
  return problem === undefined ? { iri } : { problem: `is not a valid absolute IRI: ${problem}` };
}

/**
 * The shortest CURIE for `iri` when a known namespace holds it and the rest is a plain name,
 * else the IRI in angle brackets.
 * @example compactIri('https://example.org/plant#door1') // 'plant:door1'
 */
export function compactIri(iri: string): string {
  let best: string | undefined;
  for (const [prefix, namespace] of Object.entries(CURIE_PREFIXES)) {
    if (!iri.startsWith(namespace)) continue;
    const local = iri.slice(namespace.length);
    if (PLAIN_LOCAL.test(local) && (best === undefined || prefix.length + local.length + 1 < best.length)) best = `${prefix}:${local}`;
  }
  return best ?? `<${iri}>`;
}
