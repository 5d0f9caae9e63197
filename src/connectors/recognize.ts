/**
 * Recognition of a resource's interface-accessible parameters from the graph, done once at
 * start before anything connects: the domain properties that descend (`rdfs:subPropertyOf*`)
 * from an interface property with a registered binding, the parameter nodes the resource or its
 * components hold through them, their access mode, datatype and connection metadata.
 */
import { interfaceParametersQuery, parameterDatatypesQuery, SUB_PROPERTY_EDGES_QUERY } from '../queries/connectors.js';
import type { Bindings } from '../store/triple-store.js';
import { inf } from '../vocab/terms.js';
import type { AccessMode, ParameterDeclaration } from './binding.js';
import { ANY_SCALAR } from './datatypes.js';
import type { ConnectorRegistry } from './registry.js';

/** The read side of the store recognition needs. */
export interface SelectSource {
  select(query: string): Promise<Bindings[]>;
}

/**
 * The parameters of `resource` that a binding of `registry` serves, sorted by name. Properties
 * that descend only from interface properties without a binding are not asked for.
 */
export async function recognizeParameters(
  source: SelectSource,
  resource: string,
  registry: ConnectorRegistry,
): Promise<ParameterDeclaration[]> {
  const nearest = nearestInterfaceProperty(await source.select(SUB_PROPERTY_EDGES_QUERY), registry.interfaceProperties());
  const properties = [...nearest.keys()];
  if (properties.length === 0) return [];
  const metadata = [inf.hasValue, inf.accessMode, ...registry.metadataProperties()];
  const rows = await source.select(interfaceParametersQuery(resource, properties, metadata));
  const datatypes = new Map<string, string>();
  for (const row of await source.select(parameterDatatypesQuery(properties))) datatypes.set(row.prop!.value, row.datatype!.value);
  const found = groupParameters(rows);
  const names = new NameAllocator(resource);
  const declarations: ParameterDeclaration[] = [];
  for (const p of found) {
    const mode = p.metadata.get(inf.accessMode);
    declarations.push({
      name: names.next(p.holder, p.property),
      holder: p.holder,
      property: p.property,
      interfaceProperty: nearest.get(p.property)!,
      datatype: datatypes.get(p.property) ?? p.valueDatatype ?? ANY_SCALAR,
      accessMode: accessMode(mode),
      metadata: p.metadata,
    });
  }
  return declarations.sort((a, b) => (a.name < b.name ? -1 : 1));
}

function accessMode(text: string | undefined): AccessMode {
  return text?.trim().toLowerCase() === 'readwrite' ? 'readwrite' : 'read';
}

/**
 * Each property that descends from a marker (interface property with a binding) or is one,
 * mapped to the nearest such marker by breadth-first search up the sub-property edges.
 */
export function nearestInterfaceProperty(edges: readonly Bindings[], markers: readonly string[]): Map<string, string> {
  const supers = new Map<string, string[]>();
  for (const row of edges) {
    const sub = row.sub?.value;
    const sup = row.super?.value;
    if (sub === undefined || sup === undefined || row.sub?.termType !== 'NamedNode') continue;
    supers.set(sub, [...(supers.get(sub) ?? []), sup]);
  }
  const markerSet = new Set(markers);
  const nearest = new Map<string, string>();
  for (const property of new Set([...supers.keys(), ...markers])) {
    const marker = searchUp(property, supers, markerSet);
    if (marker !== undefined) nearest.set(property, marker);
  }
  return nearest;
}

function searchUp(start: string, supers: ReadonlyMap<string, string[]>, markers: ReadonlySet<string>): string | undefined {
  const seen = new Set([start]);
  let frontier = [start];
  while (frontier.length > 0) {
    const hit = frontier.find((p) => markers.has(p));
    if (hit !== undefined) return hit;
    frontier = frontier.flatMap((p) => supers.get(p) ?? []).filter((p) => !seen.has(p) && seen.add(p));
  }
  return undefined;
}

interface FoundParameter {
  holder: string;
  property: string;
  metadata: Map<string, string>;
  valueDatatype: string | undefined;
}

/** Rows of the parameters query grouped by parameter node, in a stable order. */
function groupParameters(rows: readonly Bindings[]): FoundParameter[] {
  const byNode = new Map<string, FoundParameter>();
  for (const row of rows) {
    const { holder, prop, param, meta, metaValue } = row;
    if (!holder || !prop || !param || holder.termType === 'Literal' || param.termType === 'Literal') continue;
    const key = `${holder.value} ${prop.value} ${param.termType}:${param.value}`;
    let found = byNode.get(key);
    if (!found) {
      found = { holder: holder.value, property: prop.value, metadata: new Map(), valueDatatype: undefined };
      byNode.set(key, found);
    }
    // A metadata value may name a node (an IRI, such as a peer resource); blank nodes name nothing.
    if (meta && metaValue && metaValue.termType !== 'BlankNode' && !found.metadata.has(meta.value)) {
      found.metadata.set(meta.value, metaValue.value);
      if (meta.value === inf.hasValue && metaValue.termType === 'Literal') found.valueDatatype = metaValue.datatype;
    }
  }
  return [...byNode.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, p]) => p);
}

// A name is what a URL path segment carries without escaping.
const UNSAFE = /[^A-Za-z0-9_.-]+/gu;

/** Stable parameter names: `<property>` on the resource, `<component>.<property>` on a component. */
class NameAllocator {
  private readonly used = new Set<string>();
  constructor(private readonly resource: string) {}

  next(holder: string, property: string): string {
    const base = holder === this.resource ? localName(property) : `${localName(holder)}.${localName(property)}`;
    let name = base;
    for (let n = 2; this.used.has(name); n++) name = `${base}-${n}`;
    this.used.add(name);
    return name;
  }
}

function localName(iri: string): string {
  const local = iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/'), iri.lastIndexOf(':')) + 1);
  const safe = local.replace(UNSAFE, '_').replace(/^[.]+/u, '_');
  return safe === '' ? 'parameter' : safe;
}
