import { compactIri, CURIE_PREFIXES, expandCurie } from '../iri/curie.js';
import { UsageError } from './exit-codes.js';

/** CURIEs on the command line and in output: the prefixes of src/iri/curie.ts. */
export { compactIri, CURIE_PREFIXES as CLI_PREFIXES };

/**
 * The IRI a flag value names: a CURIE with a known prefix is expanded, anything else must be
 * an absolute IRI.
 * @throws UsageError naming the flag, the value and the accepted forms.
 * @example expandIri('plant:door1', '--resource') // 'https://example.org/plant#door1'
 */
export function expandIri(value: string, flag: string): string {
  const text = value.trim();
  const expanded = expandCurie(text);
  if ('iri' in expanded) return expanded.iri;
  const known = Object.keys(CURIE_PREFIXES)
    .map((p) => `${p}:`)
    .join(', ');
  throw new UsageError(
    `${flag} ${JSON.stringify(text)} ${expanded.problem} (expected an absolute IRI or a CURIE with one of the prefixes ${known})`,
  );
}
