/**
 * The REST connector binding: parameters whose property descends from
 * `sm:isInterfaceAccessibleRESTParameter`, read from the northbound surface of the peer resource's
 * middleware (`sm:hasRESTPeer`): its parameter (`sm:hasRESTPeerParameter`, set with PUT when
 * readwrite) or its state property (`sm:hasRESTPeerState`). A peer middleware is a device as far as
 * the connectors are concerned. One session per peer; the session module is loaded on first use.
 */
import { ValueError } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import { sm } from '../../vocab/terms.js';
import type { ConnectorBinding } from '../binding.js';
import { restMetadata } from './metadata.js';
import type { RestTiming } from './session.js';

/** Options of {@link restBinding}, in ms; each must be a positive finite number. */
export interface RestBindingOptions {
  /** Interval between two reads of a peer; default LIMITS.connectorPollIntervalMs. */
  pollIntervalMs?: number;
  /** Time one read gets; default LIMITS.connectorPollTimeoutMs. */
  pollTimeoutMs?: number;
  /** Longest a peer's address is used before it is looked up again; default LIMITS.connectorPeerResolveMs. */
  resolveMs?: number;
}

/**
 * The REST binding, registered by `defaultConnectorRegistry()` with the default timing.
 * @throws ValueError for a timing that is not a positive finite number.
 * @example registry.register(restBinding({ pollIntervalMs: 250 })) // in a registry without the default one
 */
export function restBinding(options: RestBindingOptions = {}): ConnectorBinding {
  const timing: RestTiming = {
    pollIntervalMs: positive(options.pollIntervalMs ?? LIMITS.connectorPollIntervalMs, 'pollIntervalMs'),
    pollTimeoutMs: positive(options.pollTimeoutMs ?? LIMITS.connectorPollTimeoutMs, 'pollTimeoutMs'),
    resolveMs: positive(options.resolveMs ?? LIMITS.connectorPeerResolveMs, 'resolveMs'),
  };
  return {
    interfaceProperty: sm.isInterfaceAccessibleRESTParameter,
    metadataProperties: [sm.hasRESTPeer, sm.hasRESTPeerParameter, sm.hasRESTPeerState],
    // A peer's address is not declared but found in the graph; starting the peer is not this instance's part.
    announcesTransport: false,
    // Sessions are grouped by peer resource: the "host" of a REST transport is the peer's IRI.
    transport: (parameter) => ({ host: restMetadata(parameter).peer, port: 0 }),
    canWrite: (parameter) => restMetadata(parameter).kind === 'parameter',
    open: async (transport, parameters, context) => {
      const { RestSession } = await import('./session.js');
      const served = parameters.map((declaration) => ({ declaration, metadata: restMetadata(declaration) }));
      return RestSession.open(transport.host, served, context, timing);
    },
  };
}

function positive(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new ValueError(`restBinding ${what} must be a positive number of milliseconds, got ${String(value)}`);
  return value;
}
