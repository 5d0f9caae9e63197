/**
 * The semantic connectors of one resource: recognized from the graph once at start, wired by
 * the sync direction and each parameter's access mode, one session per distinct transport
 * (announced to `ensureTransport` exactly once, before it connects). Holds each parameter's last
 * accepted value with its receive time; the live value is never written to the graph.
 */
import { RuntimeError, ValueError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import type { ConnectorBinding, ConnectorSession, ParameterDeclaration, PeerAccess, Reception, TransportAddress } from './binding.js';
import { credentialsFor, type ResolvedConnectorCredentials } from './credentials.js';
import { datatypeLabel, typeValue, type ParameterValue } from './datatypes.js';
import { ParameterNotWritableError } from './errors.js';
import { recognizeParameters, type SelectSource } from './recognize.js';
import type { ConnectorRegistry } from './registry.js';
import type { Wiring } from './wiring.js';

/** Options of {@link ConnectorSet}. */
export interface ConnectorSetOptions {
  readonly registry: ConnectorRegistry;
  readonly wiring: Wiring;
  /** Called once per distinct transport before its session opens (the spec's `ensure_transport`). */
  readonly ensureTransport?: (host: string, port: number) => void | Promise<void>;
  readonly logger: Logger;
  /** Largest accepted payload; default LIMITS.connectorPayloadMaxBytes. */
  readonly maxPayloadBytes?: number;
  /** Age after which a value is answered as stale, in ms; default null: never. */
  readonly maxAgeMs?: number | null;
  /** How peer middlewares are reached (the store comes from `start`); default: no peer access. */
  readonly peers?: Omit<PeerAccess, 'source'>;
  /** Credentials and TLS of the transports; default none (anonymous, plain TCP). */
  readonly credentials?: ResolvedConnectorCredentials;
  /** Clock, for tests; default `Date.now`. */
  readonly now?: () => number;
}

/** A parameter as served northbound: nothing southbound (no broker, topic or path) is in it. */
export interface ParameterView {
  readonly name: string;
  /** Read route (and write route, when writable) on the HTTP surface. */
  readonly route: string;
  readonly datatype: string;
  readonly accessMode: 'read' | 'readwrite';
  /** Whether a setpoint may be written here (readwrite, a set topic, and a driving wiring). */
  readonly writable: boolean;
  /** The last accepted value; null before the first. */
  readonly value: ParameterValue | null;
  /** When the value was received (ISO 8601); null before the first. */
  readonly receivedAt: string | null;
  /** Milliseconds since the value was received; null before the first. */
  readonly ageMs: number | null;
  /** True when the value is older than the configured maximum age (never served as fresh). */
  readonly stale: boolean;
  /** The last refused message, if any: why, and when. */
  readonly lastRejection: { readonly reason: string; readonly at: string } | null;
}

interface Served {
  readonly declaration: ParameterDeclaration;
  readonly writable: boolean;
  session: ConnectorSession | undefined;
  value: { value: ParameterValue; at: number } | undefined;
  rejection: { reason: string; at: number } | undefined;
}

/** The route of a parameter's reads and writes. */
export function parameterRoute(name: string): string {
  return `/parameters/${encodeURIComponent(name)}`;
}

export class ConnectorSet {
  private readonly served = new Map<string, Served>();
  private readonly sessions: ConnectorSession[] = [];
  private readonly now: () => number;
  private started = false;

  constructor(private readonly options: ConnectorSetOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Recognizes the resource's parameters and opens their sessions. Parameters whose metadata a
   * binding refuses are left out (a warning names the parameter and the rule). Inspecting wiring
   * recognizes and serves the list, but connects nothing.
   * @throws RuntimeError when called again before {@link ConnectorSet.close}.
   */
  async start(source: SelectSource, resource: string): Promise<void> {
    if (this.started) throw new RuntimeError('connectors started already');
    this.started = true;
    const { registry, wiring, logger } = this.options;
    const byTransport = new Map<string, { transport: TransportAddress; binding: ConnectorBinding; parameters: ParameterDeclaration[] }>();
    for (const declaration of await recognizeParameters(source, resource, registry)) {
      const binding = registry.get(declaration.interfaceProperty)!;
      let transport: TransportAddress;
      try {
        transport = binding.transport(declaration);
      } catch (error) {
        logger.warn(
          { parameter: declaration.name, reason: (error as Error).message },
          'parameter left out: its connection metadata is unusable',
        );
        continue;
      }
      const writable = declaration.accessMode === 'readwrite' && wiring.writes && binding.canWrite(declaration);
      this.served.set(declaration.name, { declaration, writable, session: undefined, value: undefined, rejection: undefined });
      const key = `${declaration.interfaceProperty} ${transport.host} ${transport.port}`;
      const group = byTransport.get(key) ?? { transport, binding, parameters: [] };
      group.parameters.push(declaration);
      byTransport.set(key, group);
    }
    logger.info({ parameters: this.served.size, transports: byTransport.size, wiring }, 'connectors recognized');
    if (!wiring.reads && !wiring.writes) return;
    const announced = new Set<string>();
    for (const { transport, binding, parameters } of byTransport.values()) {
      const address = `${transport.host} ${transport.port}`;
      if (binding.announcesTransport !== false && !announced.has(address)) {
        announced.add(address);
        await this.options.ensureTransport?.(transport.host, transport.port);
      }
      const session = await binding.open(transport, parameters, {
        wiring,
        logger: logger.child({ connector: binding.interfaceProperty }),
        maxPayloadBytes: this.options.maxPayloadBytes ?? LIMITS.connectorPayloadMaxBytes,
        credentials: credentialsFor(this.options.credentials, transport),
        received: (name, reception) => this.receive(name, reception),
        ...(this.options.peers && { peers: { ...this.options.peers, source } }),
      });
      this.sessions.push(session);
      for (const p of parameters) this.served.get(p.name)!.session = session;
    }
  }

  /** Every parameter, by name. */
  list(): ParameterView[] {
    return [...this.served.values()].map((s) => this.view(s));
  }

  /** One parameter, or undefined when none has that name. */
  read(name: string): ParameterView | undefined {
    const s = this.served.get(name);
    return s && this.view(s);
  }

  /**
   * Writes a setpoint: typed by the parameter's datatype, then sent by its connector.
   * @throws ParameterNotWritableError (405) when the parameter is read-only or the wiring does
   *   not write; ValueError (400) when the value does not fit the datatype; UnavailableError
   *   (503) when its transport is not connected. Nothing is sent in any of these cases.
   */
  async write(name: string, candidate: unknown): Promise<ParameterView> {
    const s = this.served.get(name);
    if (s === undefined) throw new ValueError(`no parameter named "${name}"`);
    if (!s.writable || s.session === undefined) throw new ParameterNotWritableError(this.refusal(s));
    const typed = typeValue(s.declaration.datatype, candidate);
    if (!typed.ok) throw new ValueError(`value for parameter "${name}": ${typed.reason}`);
    await s.session.write(name, typed.value);
    return this.view(s);
  }

  /** Whether every session's transport is connected (true when there are none). */
  connected(): boolean {
    return this.sessions.every((s) => s.connected());
  }

  /** Closes every session and forgets the parameters, so that a failed start may start again; repeatable. */
  async close(): Promise<void> {
    this.started = false;
    this.served.clear();
    const sessions = this.sessions.splice(0);
    await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
  }

  private refusal(s: Served): string {
    const { name, accessMode } = s.declaration;
    if (accessMode !== 'readwrite') return `parameter "${name}" is read-only`;
    const { wiring } = this.options;
    if (!wiring.writes) return `parameter "${name}" is not writable here: this instance ${wiring.reads ? 'observes' : 'connects nothing'}`;
    return `parameter "${name}" has no setpoint connector`;
  }

  private receive(name: string, reception: Reception): void {
    const s = this.served.get(name);
    if (s === undefined) return;
    const at = this.now();
    const typed = 'reason' in reception ? reception : typeValue(s.declaration.datatype, reception.candidate);
    if ('reason' in typed) {
      s.rejection = { reason: typed.reason, at };
      this.options.logger.warn({ parameter: name, reason: typed.reason }, 'parameter value refused');
      return;
    }
    // An age from a peer is data from outside: kept within [0, now] so the receive time stays a date.
    const given = 'candidate' in reception ? (reception.ageMs ?? 0) : 0;
    const ageMs = Number.isFinite(given) ? Math.min(Math.max(0, given), at) : 0;
    s.value = { value: typed.value, at: at - ageMs };
  }

  private view(s: Served): ParameterView {
    const { name, datatype, accessMode } = s.declaration;
    const now = this.now();
    const ageMs = s.value ? Math.max(0, now - s.value.at) : null;
    const maxAgeMs = this.options.maxAgeMs ?? null;
    return {
      name,
      route: parameterRoute(name),
      datatype: datatypeLabel(datatype),
      accessMode,
      writable: s.writable,
      value: s.value?.value ?? null,
      receivedAt: s.value ? new Date(s.value.at).toISOString() : null,
      ageMs,
      stale: ageMs !== null && maxAgeMs !== null && ageMs > maxAgeMs,
      lastRejection: s.rejection ? { reason: s.rejection.reason, at: new Date(s.rejection.at).toISOString() } : null,
    };
  }
}
