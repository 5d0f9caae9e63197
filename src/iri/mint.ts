import { randomHex } from '../lib/random-hex.js';
import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { normalizeServiceAddress } from './address.js';
import { lined } from './lined.js';
import { assertIri, preview } from './validate.js';

// Names become an IRI segment and a URL path segment: keep to URL-unreserved characters.
const NAME = /^[A-Za-z0-9._~-]+$/u;

/** Returns `name` when it can be a workflow or state-property name; throws ValueError otherwise. */
export function assertName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string' || !NAME.test(name) || name.length > LIMITS.maxNameLength) {
    throw new ValueError(
      `${what} ${preview(name)} is not a valid name: use 1 to ${LIMITS.maxNameLength} of the characters A-Z a-z 0-9 . _ ~ -`,
    );
  }
  return name;
}

function mintedIri(iri: string, what: string): string {
  return assertIri(iri, what);
}

function freshSuffix(): string {
  return randomHex(6);
}

/**
 * `{resourceIri}_service_{lined normalized address}`: stable across restarts and distinct
 * between instances of one resource at different addresses.
 * @throws ValueError if `address` is not an absolute http(s) URL or has an IPv6 literal host.
 */
export function mintServiceIri(resourceIri: string, address: string): string {
  assertIri(resourceIri, 'resourceIri');
  return mintedIri(`${resourceIri}_service_${lined(normalizeServiceAddress(address))}`, 'service IRI');
}

/** `{serviceIri}_workflow_{name}` */
export function mintWorkflowIri(serviceIri: string, name: string): string {
  return mintedIri(`${assertIri(serviceIri, 'serviceIri')}_workflow_${assertName(name, 'workflow name')}`, 'workflow IRI');
}

/** `{resourceIri}_capability_{name}`: one per resource, shared by the resource's instances. */
export function mintCapabilityIri(resourceIri: string, name: string): string {
  return mintedIri(`${assertIri(resourceIri, 'resourceIri')}_capability_${assertName(name, 'capability name')}`, 'capability IRI');
}

/** `{serviceIri}_state_{name}` */
export function mintStatePropertyIri(serviceIri: string, name: string): string {
  return mintedIri(`${assertIri(serviceIri, 'serviceIri')}_state_${assertName(name, 'state property name')}`, 'state property IRI');
}

/** A fresh `{operationClass}_op_{12 hex}`, minted per dispatch. */
export function mintOperationIri(operationClass: string): string {
  return mintedIri(`${assertIri(operationClass, 'operationClass')}_op_${freshSuffix()}`, 'operation IRI');
}

/** What joins a workpiece's IRI and a suffix in the IRIs of its PossessionStates (readers find its history by it). */
export const POSSESSION_STATE_INFIX = '_possession_';

/** A fresh `{workpieceIri}_possession_{12 hex}`, minted per change of possession. */
export function mintPossessionStateIri(workpieceIri: string): string {
  return mintedIri(`${assertIri(workpieceIri, 'workpieceIri')}${POSSESSION_STATE_INFIX}${freshSuffix()}`, 'possession state IRI');
}
