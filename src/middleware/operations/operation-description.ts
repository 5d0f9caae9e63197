import { ValueError } from '../../errors.js';
import { isIri, preview } from '../../iri/validate.js';
import type { Individual, WrittenIndividual } from '../../ogm/ogm.js';
import type { Term } from '../../store/terms.js';
import { OperationStatus } from '../../vocab/status.js';
import { cfc, sm, svc } from '../../vocab/terms.js';
import { dateTimeLiteral, literal } from '../../store/terms.js';

/**
 * The Operation as its requester wrote it, sent with the event trigger (`"operation"` beside
 * `"operation_iri"`): its classes and its property values as terms. A receiver that gets it
 * claims the Operation without reading it first: the claim's compare-and-set requires the graph
 * to hold exactly these classes and values, so the work never sees anything the graph does not
 * hold, and the Operation is read from the store only by a requester that sends no description.
 */

/** Classes and property values of an Operation, as written at its creation. */
export interface OperationDescription {
  readonly types: readonly string[];
  /** Property IRI -> its values (never empty). */
  readonly properties: Readonly<Record<string, readonly Term[]>>;
}

/** What a create wrote, as the trigger carries it. */
export function describeWritten(written: WrittenIndividual): OperationDescription {
  return { types: [...written.classes], properties: Object.fromEntries(written.values) };
}

/** The Capability the description addresses: its one `cfc:implementsCapability` IRI, if it has exactly one. */
export function describedCapability(description: OperationDescription): string | undefined {
  const values = description.properties[cfc.implementsCapability] ?? [];
  return values.length === 1 && values[0]!.termType === 'NamedNode' ? values[0]!.value : undefined;
}

/** The described `sm:deadline`, if any: the graph's word only once a compare-and-set requiring the description applied. */
export function describedDeadline(description: OperationDescription): Date | undefined {
  const value = description.properties[sm.deadline]?.[0]?.value;
  return value === undefined ? undefined : new Date(value);
}

/**
 * The values a claim requires besides the status: every described property but the status, and
 * no `sm:deadline` when none is described, so the deadline the receiver keeps is the graph's.
 */
export function claimExpectations(description: OperationDescription): Record<string, readonly Term[]> {
  const { [svc.operationStatus]: _status, ...rest } = description.properties;
  return { [sm.deadline]: [], ...rest };
}

/** The Operation as a claim that applied left it: what `ogm.fetch` would read right after. */
export function claimedIndividual(operationIri: string, description: OperationDescription, claimedAt: Date): Individual {
  return {
    iri: operationIri,
    types: [...description.types],
    properties: Object.assign(Object.fromEntries(Object.entries(description.properties).map(([p, terms]) => [p, [...terms]])), {
      [svc.operationStatus]: [literal(OperationStatus.RUNNING)],
      [sm.claimedAt]: [dateTimeLiteral(claimedAt)],
    }),
    linked: {},
  };
}

const EXPECTED = 'the Operation description is {"types": [<iri>...], "properties": {<iri>: [<term>...]}}';

/**
 * Reads a description from a trigger body.
 * @throws ValueError naming what is wrong: not an object, a type or property that is not an IRI,
 *   a value that is not a named node or literal term.
 */
export function parseDescription(value: unknown): OperationDescription {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValueError(`${EXPECTED}; got ${preview(value)}`);
  const { types, properties } = value as Record<string, unknown>;
  if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === 'string' && isIri(t)))
    throw new ValueError(`${EXPECTED}; its types are ${preview(types)}`);
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    throw new ValueError(`${EXPECTED}; its properties are ${preview(properties)}`);
  const out: Record<string, Term[]> = {};
  for (const [property, terms] of Object.entries(properties as Record<string, unknown>)) {
    if (!isIri(property)) throw new ValueError(`${EXPECTED}; property ${preview(property)} is not an IRI`);
    if (!Array.isArray(terms) || terms.length === 0) throw new ValueError(`${EXPECTED}; the values of <${property}> are ${preview(terms)}`);
    out[property] = terms.map((t) => termOf(t, property));
  }
  return { types: types, properties: out };
}

function termOf(value: unknown, property: string): Term {
  const t = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (t.termType === 'NamedNode' && typeof t.value === 'string' && isIri(t.value)) return { termType: 'NamedNode', value: t.value };
  if (t.termType === 'Literal' && typeof t.value === 'string' && typeof t.datatype === 'string' && isIri(t.datatype)) {
    if (t.language === undefined) return { termType: 'Literal', value: t.value, datatype: t.datatype };
    if (typeof t.language === 'string') return { termType: 'Literal', value: t.value, datatype: t.datatype, language: t.language };
  }
  throw new ValueError(`${EXPECTED}; a value of <${property}> is not a named node or literal term: ${preview(value)}`);
}
