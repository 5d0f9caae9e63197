/**
 * The REST connection metadata of a parameter node, checked: the peer resource, and the peer's
 * parameter or state property it is read from. Problems name the parameter and the metadata
 * property, never the value (metadata is southbound only).
 */
import { ValueError } from '../../errors.js';
import { iriProblem } from '../../iri/validate.js';
import { LIMITS } from '../../limits.js';
import { sm } from '../../vocab/terms.js';
import type { ParameterDeclaration } from '../binding.js';

/** Which route of the peer serves the value: its parameter (read and set) or its state property (read only). */
export type PeerRouteKind = 'parameter' | 'state';

/** A parameter's checked REST metadata. */
export interface RestMetadata {
  /** IRI of the resource whose middleware serves the value. */
  readonly peer: string;
  readonly kind: PeerRouteKind;
  /** The path on the peer's surface: `/parameters/{name}` or `/state/{name}`, the name percent-encoded. */
  readonly path: string;
}

/**
 * Reads and checks the REST metadata of `parameter`: `sm:hasRESTPeer` an IRI, and exactly one of
 * `sm:hasRESTPeerParameter` and `sm:hasRESTPeerState`, a name of at most LIMITS.maxNameLength
 * characters without control characters, and not `.` or `..` (which a proxy in front of the peer
 * could resolve to another route).
 * @throws ValueError naming the parameter and the property at fault.
 */
export function restMetadata(parameter: ParameterDeclaration): RestMetadata {
  const meta = parameter.metadata;
  const fault = (property: string, rule: string): ValueError =>
    new ValueError(`parameter "${parameter.name}": ${shortName(property)} ${rule}`);
  const peer = meta.get(sm.hasRESTPeer);
  if (peer === undefined) throw fault(sm.hasRESTPeer, 'is missing');
  if (iriProblem(peer) !== undefined) throw fault(sm.hasRESTPeer, 'is not an IRI');
  const parameterName = meta.get(sm.hasRESTPeerParameter);
  const stateName = meta.get(sm.hasRESTPeerState);
  if ((parameterName === undefined) === (stateName === undefined))
    throw fault(sm.hasRESTPeerParameter, `or ${shortName(sm.hasRESTPeerState)}: exactly one is needed`);
  const kind: PeerRouteKind = parameterName !== undefined ? 'parameter' : 'state';
  const property = kind === 'parameter' ? sm.hasRESTPeerParameter : sm.hasRESTPeerState;
  const name = (parameterName ?? stateName)!;
  if (!usableName(name)) throw fault(property, `is not a name of 1 to ${LIMITS.maxNameLength} characters without control characters`);
  return { peer, kind, path: `/${kind === 'parameter' ? 'parameters' : 'state'}/${encodeURIComponent(name)}` };
}

// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

function usableName(name: string): boolean {
  return name.length > 0 && name.length <= LIMITS.maxNameLength && name !== '.' && name !== '..' && !CONTROL.test(name);
}

function shortName(iri: string): string {
  return `sm:${iri.slice(iri.lastIndexOf('#') + 1)}`;
}
