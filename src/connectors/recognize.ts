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

/** A node the resource (or a component of it) holds through a property descending from a marker. */
export interface InterfaceNode {
  /** Stable name, unique among the nodes of one search: see {@link NameAllocator}. */
  readonly name: string;
  readonly holder: string;
  /** The domain property. */
  readonly property: string;
  /** The nearest marker the property descends from (or is). */
  readonly marker: string;
  /** Metadata property IRI → lexical value (or IRI, for the properties in `iriMetadata`). */
  readonly metadata: ReadonlyMap<string, string>;
  /** Datatype of the node's `inf:hasValue` literal, if it has one. */
  readonly valueDatatype: string | undefined;
}

/**
 * The nodes `resource` or its components hold through properties that descend from `markers`,
 * with the values of `metadata` (literals; IRIs too for the properties in `iriMetadata`), by
 * name. Also the marker of each property, for callers that need the closure itself.
 */
export async function findInterfaceNodes(
  source: SelectSource,
  resource: string,
  markers: readonly string[],
  metadata: readonly string[],
  iriMetadata: ReadonlySet<string> = new Set(),
): Promise<{ nodes: InterfaceNode[]; nearest: ReadonlyMap<string, string> }> {
  const nearest = nearestInterfaceProperty(await source.select(SUB_PROPERTY_EDGES_QUERY), markers);
  const properties = [...nearest.keys()];
  if (properties.length === 0) return { nodes: [], nearest };
  const rows = await source.select(interfaceParametersQuery(resource, properties, metadata));
  const names = new NameAllocator(resource);
  const nodes = groupParameters(rows, iriMetadata).map((p) => ({
    ...p,
    name: names.next(p.holder, p.property),
    marker: nearest.get(p.property)!,
  }));
  return { nodes: nodes.sort((a, b) => (a.name < b.name ? -1 : 1)), nearest };
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
  const bindingMetadata = registry.metadataProperties();
  const metadata = [inf.hasValue, inf.accessMode, ...bindingMetadata];
  // A binding's metadata may name a node (the REST binding's peer resource); the value and the
  // access mode are literals.
  const { nodes, nearest } = await findInterfaceNodes(source, resource, registry.interfaceProperties(), metadata, new Set(bindingMetadata));
  if (nodes.length === 0) return [];
  const datatypes = new Map<string, string>();
  for (const row of await source.select(parameterDatatypesQuery([...nearest.keys()]))) datatypes.set(row.prop!.value, row.datatype!.value);
  return nodes.map((p) => ({
    name: p.name,
    holder: p.holder,
    property: p.property,
    interfaceProperty: p.marker,
    datatype: datatypes.get(p.property) ?? p.valueDatatype ?? ANY_SCALAR,
    accessMode: accessMode(p.metadata.get(inf.accessMode)),
    metadata: p.metadata,
  }));
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
function groupParameters(rows: readonly Bindings[], iriMetadata: ReadonlySet<string>): FoundParameter[] {
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
    const usable = metaValue?.termType === 'Literal' || (metaValue?.termType === 'NamedNode' && iriMetadata.has(meta?.value ?? ''));
    if (meta && usable && !found.metadata.has(meta.value)) {
      found.metadata.set(meta.value, metaValue.value);
      if (meta.value === inf.hasValue && metaValue?.termType === 'Literal') found.valueDatatype = metaValue.datatype;
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
