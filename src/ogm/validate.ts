import { ValidationError, ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { Term } from '../store/terms.js';
import { OWL } from '../vocab/namespaces.js';
import type { Tbox } from './tbox.js';
import { toTerm, type ValueInput } from './values.js';

/** A write to one individual, as the OGM validates it. */
export interface WriteIntent {
  focus: string;
  /** Every class of the individual after the write (asserted types, without closure). */
  classes: readonly string[];
  /** Property -> the values it holds after the write (for commit) or gains (for create). */
  values: ReadonlyMap<string, readonly Term[]>;
}

function reject(message: string, details: { focus?: string; property?: string; rule: string }): never {
  throw new ValidationError(`${message} (rule: ${details.rule})`, details);
}

/** Checks that every class is declared in the ontology. */
export function checkClasses(tbox: Tbox, focus: string, classes: readonly string[]): void {
  if (classes.length === 0) reject(`<${focus}> has no type, so no write to it can be validated`, { focus, rule: 'typed-individual' });
  for (const c of classes) {
    assertIri(c, 'class');
    if (!tbox.hasClass(c)) reject(`class <${c}> of <${focus}> is not declared in the ontology`, { focus, rule: 'class-declared' });
  }
}

/**
 * Turns raw property inputs into terms, checking that each property is declared and that its
 * domain admits the individual's classes. Throws a ValidationError naming the property.
 */
export function resolveValues(
  tbox: Tbox,
  focus: string,
  classes: readonly string[],
  inputs: Readonly<Record<string, ValueInput | readonly ValueInput[]>>,
): Map<string, Term[]> {
  const closure = tbox.closure(classes);
  const out = new Map<string, Term[]>();
  for (const [property, raw] of Object.entries(inputs)) {
    assertIri(property, 'property');
    const info = tbox.properties.get(property);
    if (!info) reject(`property <${property}> is not declared in the ontology`, { focus, property, rule: 'property-declared' });
    for (const alternatives of info.domains) {
      if (!alternatives.some((d) => closure.has(d) || d === OWL('Thing'))) {
        reject(
          `<${focus}> (a ${classes.map((c) => `<${c}>`).join(', ')}) is outside the domain of <${property}>, which needs ${alternatives.map((d) => `<${d}>`).join(' or ')}`,
          { focus, property, rule: 'domain' },
        );
      }
    }
    const list = Array.isArray(raw) ? (raw as readonly ValueInput[]) : [raw as ValueInput];
    out.set(property, dedupe(list.map((v) => toTerm(info, v))));
  }
  return out;
}

/**
 * Pure removals (`property -> []`) of a bulk commit: each property must be declared, but its
 * domain is not checked. Removing values writes nothing a domain could forbid, and a bulk commit
 * may clear properties of individuals of different classes (deregistration clears
 * `svc:address` on a Service and `svc:endpoint` on its Workflows and StateProperties).
 */
export function resolveRemovals(tbox: Tbox, focus: string, properties: readonly string[]): Map<string, Term[]> {
  const out = new Map<string, Term[]>();
  for (const property of properties) {
    assertIri(property, 'property');
    if (!tbox.properties.has(property))
      reject(`property <${property}> is not declared in the ontology`, { focus, property, rule: 'property-declared' });
    out.set(property, []);
  }
  return out;
}

function dedupe(terms: Term[]): Term[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = `${t.termType}|${t.value}|${t.termType === 'Literal' ? `${t.datatype}|${t.language ?? ''}` : ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Checks maximum cardinalities derived from OWL restrictions on the individual's classes. */
export function checkMaxCounts(tbox: Tbox, intent: WriteIntent): void {
  for (const cls of tbox.closure(intent.classes)) {
    for (const [property, max] of tbox.maxCounts.get(cls) ?? []) {
      const n = intent.values.get(property)?.length ?? 0;
      if (n > max) {
        reject(`<${intent.focus}> would hold ${n} values of <${property}>, but <${cls}> allows at most ${max}`, {
          focus: intent.focus,
          property,
          rule: 'max-cardinality',
        });
      }
    }
  }
}

const isMap = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the shape of a create or commit input from an untyped caller: an object whose property
 * maps (`required` ones present) are objects, and whose `type`, when `types` is set, is a class
 * IRI or a list of them. Returns the classes of a create.
 * @throws ValueError naming the field and the value received.
 */
export function checkInputShape(input: unknown, what: string, maps: { required?: readonly string[]; optional?: readonly string[] }): void {
  if (!isMap(input)) throw new ValueError(`${what} must be an object, got ${preview(input)}`);
  const fields = input as Record<string, unknown>;
  for (const key of maps.required ?? []) {
    if (!isMap(fields[key])) throw new ValueError(`${what}.${key} must be an object of property -> values, got ${preview(fields[key])}`);
    // An empty replacement would be an update with an empty DELETE template, which Virtuoso refuses.
    if (Object.keys(fields[key] as object).length === 0)
      throw new ValueError(`${what}.${key} names no property: give at least one property to write or remove`);
  }
  for (const key of maps.optional ?? []) {
    if (fields[key] !== undefined && !isMap(fields[key]))
      throw new ValueError(`${what}.${key} must be an object of property -> values, got ${preview(fields[key])}`);
  }
}

/** The classes a create names: one class IRI or a list of them. @throws ValueError otherwise. */
export function classesOf(type: unknown, focus: string): string[] {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.map((c: unknown) => assertIri(c, 'class'));
  throw new ValueError(`the type of <${focus}> must be a class IRI or a list of them, got ${preview(type)}`);
}
