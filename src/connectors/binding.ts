/**
 * The connector binding interface: what a protocol (MQTT ships; users add others) must provide
 * to serve the interface-accessible parameters recognized from the graph. A binding is
 * registered under the interface property its parameters descend from, names the connection
 * metadata it reads from the parameter node, and opens one session per transport address.
 */
import type { Logger } from '../lib/logger.js';
import type { TransportCredentials } from './credentials.js';
import type { ParameterValue } from './datatypes.js';
import type { SelectSource } from './recognize.js';
import type { Wiring } from './wiring.js';

/** `inf:accessMode`: absent or unknown means `read`. */
export type AccessMode = 'read' | 'readwrite';

/** An interface-accessible parameter as the graph declares it. */
export interface ParameterDeclaration {
  /** Stable name, unique per resource: the property's local name, prefixed by the component's. */
  readonly name: string;
  /** The resource, or the component of it, that holds the parameter. */
  readonly holder: string;
  /** The domain property (e.g. `tu:hasConveyorSpeed`). */
  readonly property: string;
  /** The registered interface property it descends from (e.g. `inf:isInterfaceAccessibleMQTTParameter`). */
  readonly interfaceProperty: string;
  /** Datatype IRI of the value, or `ANY_SCALAR` when the range names none. */
  readonly datatype: string;
  readonly accessMode: AccessMode;
  /**
   * Connection metadata, metadata property IRI → lexical value. Southbound only: never logged at
   * info level, never served, never put into an error a peer may see.
   */
  readonly metadata: ReadonlyMap<string, string>;
}

/** Where a session connects, as `ensureTransport(host, port)` is told. */
export interface TransportAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * What a session reports about one received message: a candidate value (with how old it already
 * was on arrival, for a value relayed from a peer that holds its own copy; default 0), or why the
 * message was refused.
 */
export type Reception = { readonly candidate: unknown; readonly ageMs?: number } | { readonly reason: string };

/**
 * What a binding needs to reach peer middlewares through their northbound surface: where their
 * Services are looked up, which heartbeat still counts, and the bearer token each peer wants.
 */
export interface PeerAccess {
  /** The store the parameters were recognized from. */
  readonly source: SelectSource;
  /** The graph Services are registered in. */
  readonly graph: string;
  /** A peer's Service is used only while its `svc:lastHeartbeat` is at most this old, in ms. */
  readonly freshWithinMs: number;
  /** The token sent to the Service at `address` (`Authorization: Bearer`), or undefined for none. */
  tokenFor(address: string): string | undefined;
}

/** What a binding's session is given. */
export interface ConnectorContext {
  readonly wiring: Wiring;
  /** Logger for the session; southbound details at debug level only. */
  readonly logger: Logger;
  /** Largest payload accepted; larger ones are refused with a reason. */
  readonly maxPayloadBytes: number;
  /** User name, password and TLS for this transport; undefined: anonymous, plain TCP. Never logged. */
  readonly credentials: Readonly<TransportCredentials> | undefined;
  /** Reports a received value (parsed, not yet typed) or why a message was refused. */
  received(parameter: string, reception: Reception): void;
  /** Access to peer middlewares; undefined when the connector set was given none. */
  readonly peers?: PeerAccess;
}

/** One open connection to one transport, serving several parameters. */
export interface ConnectorSession {
  /** Whether the transport is connected now. */
  connected(): boolean;
  /**
   * Sends a typed setpoint of a parameter the session reported writable.
   * @throws UnavailableError when the transport is not connected (the message names no address).
   */
  write(parameter: string, value: ParameterValue): Promise<void>;
  /** Closes the connection; repeatable. */
  close(): Promise<void>;
}

/** A protocol binding, registered in a `ConnectorRegistry` under its interface property. */
export interface ConnectorBinding {
  /** The interface property whose sub-properties this binding serves. */
  readonly interfaceProperty: string;
  /** Connection-metadata properties read from each parameter node (literals, or IRIs as their text). */
  readonly metadataProperties: readonly string[];
  /**
   * Whether `ensureTransport` is told about this binding's transports; default true. False for a
   * binding whose parameters declare no address but are grouped by something found at run time
   * (the REST binding: a peer resource, whose Service's address comes from the graph).
   */
  readonly announcesTransport?: boolean;
  /**
   * The transport a parameter connects to, checked from its metadata.
   * @throws ValueError naming the parameter (not its metadata) when the metadata is unusable.
   */
  transport(parameter: ParameterDeclaration): TransportAddress;
  /** Whether the parameter's metadata allows writing (e.g. it has a set topic). */
  canWrite(parameter: ParameterDeclaration): boolean;
  /** Opens one session for the parameters of one transport; connecting may continue in the background. */
  open(transport: TransportAddress, parameters: readonly ParameterDeclaration[], context: ConnectorContext): Promise<ConnectorSession>;
}
