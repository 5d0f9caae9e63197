/**
 * One REST connection to one peer middleware, serving every parameter read from that peer: finds
 * the peer's address in the graph (a Service of the peer resource with a fresh heartbeat), polls
 * its northbound routes (when the wiring reads; else probes `/healthz`, so readiness still tells),
 * sends setpoints with PUT, and looks the peer up again after any failed call. Loaded only when a
 * REST parameter is served.
 *
 * The peer's address is southbound: it appears in debug logs only, never in a reason, an error or
 * an info-level log.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RuntimeError, UnavailableError } from '../../errors.js';
import { normalizeHttpAddress } from '../../iri/address.js';
import { LIMITS } from '../../limits.js';
import { freshPeerServicesQuery } from '../../queries/connectors.js';
import type { ConnectorContext, ConnectorSession, ParameterDeclaration, PeerAccess, Reception } from '../binding.js';
import { typeValue, type ParameterValue } from '../datatypes.js';
import { readRefusal, receptionOf, setpointRefusal, usableAddress } from './answers.js';
import type { RestMetadata } from './metadata.js';
import { PeerClient, PeerReplyUnusable, PeerUnreachable, type PeerAnswer, type PeerCall } from './peer-client.js';

/** A parameter of the session with its checked metadata. */
export interface RestParameter {
  readonly declaration: ParameterDeclaration;
  readonly metadata: RestMetadata;
}

/** How often and how long a session talks to its peer, in ms. */
export interface RestTiming {
  readonly pollIntervalMs: number;
  readonly pollTimeoutMs: number;
  readonly resolveMs: number;
}

/** Services of one peer considered when its address is looked up. */
const PEER_SERVICE_CANDIDATES = 8;

/** The session of one peer: see the module comment. Opened by the REST binding, closed by the connector set. */
export class RestSession implements ConnectorSession {
  private readonly byName = new Map<string, RestParameter>();
  /** The last reason reported per parameter, so a lasting fault is reported once, not every poll. */
  private readonly reported = new Map<string, string>();
  private readonly client = new PeerClient();
  private readonly stop = new AbortController();
  private readonly loop: Promise<void>;
  private address: string | undefined;
  private resolvedAt = Number.NEGATIVE_INFINITY;
  private reachable = false;
  /** Whether the last look-up found only unusable addresses (warned once, not every poll). */
  private warnedUnusable = false;
  private closed = false;

  private constructor(
    private readonly peer: string,
    parameters: readonly RestParameter[],
    private readonly access: PeerAccess,
    private readonly context: ConnectorContext,
    private readonly timing: RestTiming,
  ) {
    for (const p of parameters) this.byName.set(p.declaration.name, p);
    this.loop = this.run();
  }

  /**
   * Starts polling `peer` in the background and returns at once (not once the peer answered).
   * @throws RuntimeError when the context gives no peer access.
   */
  static open(peer: string, parameters: readonly RestParameter[], context: ConnectorContext, timing: RestTiming): RestSession {
    if (context.peers === undefined)
      throw new RuntimeError('the REST connector needs peer access: give the connector set a `peers` option');
    return new RestSession(peer, parameters, context.peers, context, timing);
  }

  connected(): boolean {
    return this.reachable;
  }

  async write(parameter: string, value: ParameterValue): Promise<void> {
    if (this.closed) throw new RuntimeError(`parameter "${parameter}": the connector is closed`);
    const p = this.byName.get(parameter);
    if (p === undefined || p.metadata.kind !== 'parameter') throw new RuntimeError(`parameter "${parameter}" has no setpoint connector`);
    const address = await this.currentAddress();
    if (address === undefined) throw new UnavailableError(`parameter "${parameter}": its peer is not reachable; nothing was sent`);
    let answer: PeerAnswer;
    try {
      answer = await this.send(address, p, { value }, LIMITS.connectorWriteTimeoutMs);
    } catch (error) {
      if (!(error instanceof PeerUnreachable)) return; // a 2xx whose body is of no use: the setpoint was taken
      this.lost(error);
      throw new UnavailableError(
        error.timedOut
          ? `parameter "${parameter}": its peer did not answer the setpoint in time; it may or may not have been applied`
          : `parameter "${parameter}": its peer is not reachable; nothing was sent`,
      );
    }
    if (!answer.ok) throw setpointRefusal(parameter, answer.status);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    this.client.close();
    await this.loop;
  }

  /** Polls, then sleeps, until closed: a poll that fails never ends the loop. */
  private async run(): Promise<void> {
    const { signal } = this.stop;
    while (!signal.aborted) {
      await this.poll().catch((error: unknown) => this.context.logger.debug({ err: error }, 'REST connector poll failed'));
      await sleep(this.timing.pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
  }

  private async poll(): Promise<void> {
    const address = await this.currentAddress();
    if (this.closed) return;
    if (address === undefined) return this.setReachable(false);
    try {
      if (this.context.wiring.reads) await Promise.all([...this.byName.values()].map((p) => this.read(address, p)));
      else await this.client.send(address, this.call(address, 'GET', '/healthz', undefined, this.timing.pollTimeoutMs));
      this.setReachable(true);
    } catch (error) {
      // A probe answered with something that is not JSON still answered.
      if (error instanceof PeerReplyUnusable) return this.setReachable(true);
      if (!(error instanceof PeerUnreachable)) throw error;
      this.lost(error);
    }
  }

  /** Reads one parameter from the peer and reports it. @throws PeerUnreachable. */
  private async read(address: string, p: RestParameter): Promise<void> {
    let reception: Reception | undefined;
    try {
      const answer = await this.send(address, p, undefined, this.timing.pollTimeoutMs);
      reception = answer.ok ? receptionOf(p.metadata, answer.value) : { reason: readRefusal(p.metadata, answer.status) };
    } catch (error) {
      if (!(error instanceof PeerReplyUnusable)) throw error;
      reception = { reason: `the peer's answer is not JSON or exceeds ${this.context.maxPayloadBytes} bytes` };
    }
    if (reception !== undefined && !this.closed) this.report(p.declaration, reception);
  }

  /** Hands a reception on: every value (its age refreshes), but a refusal only when its reason changed. */
  private report(declaration: ParameterDeclaration, reception: Reception): void {
    const { name, datatype } = declaration;
    let outcome = reception;
    if ('candidate' in outcome) {
      const typed = typeValue(datatype, outcome.candidate);
      if (!typed.ok) outcome = { reason: typed.reason };
    }
    if ('reason' in outcome) {
      if (this.reported.get(name) === outcome.reason) return;
      this.reported.set(name, outcome.reason);
    } else {
      this.reported.delete(name);
    }
    this.context.received(name, outcome);
  }

  private send(address: string, p: RestParameter, body: unknown, timeoutMs: number): Promise<PeerAnswer> {
    return this.client.send(address, this.call(address, body === undefined ? 'GET' : 'PUT', p.metadata.path, body, timeoutMs));
  }

  private call(address: string, method: 'GET' | 'PUT', path: string, body: unknown, timeoutMs: number): PeerCall {
    return { method, path, body, token: this.access.tokenFor(address), timeoutMs, maxReplyBytes: this.context.maxPayloadBytes };
  }

  /** The peer's address: the one found last while it is recent, else looked up again (kept when the store fails). */
  private async currentAddress(): Promise<string | undefined> {
    if (this.address !== undefined && Date.now() - this.resolvedAt < this.timing.resolveMs) return this.address;
    try {
      this.address = await this.resolve();
      this.resolvedAt = Date.now();
    } catch (error) {
      this.context.logger.debug({ err: error }, 'REST connector could not look its peer up; keeping the last address');
    }
    return this.address;
  }

  /** The address of the peer's freshest Service whose address is a usable http(s) URL, if any. */
  private async resolve(): Promise<string | undefined> {
    const cutoff = new Date(Date.now() - this.access.freshWithinMs);
    const rows = await this.access.source.select(freshPeerServicesQuery(this.access.graph, this.peer, cutoff, PEER_SERVICE_CANDIDATES));
    const addresses = rows.map((row) => row.addr?.value).filter((a): a is string => a !== undefined);
    const usable = addresses.find(usableAddress);
    const unusable = usable === undefined && addresses.length > 0;
    if (unusable && !this.warnedUnusable)
      this.context.logger.warn(
        { parameters: [...this.byName.keys()] },
        'the peer of these parameters registered no usable http(s) address',
      );
    this.warnedUnusable = unusable;
    return usable === undefined ? undefined : normalizeHttpAddress(usable);
  }

  /** A call got no answer: the peer is unreachable until it answers again, and is looked up again first. */
  private lost(error: PeerUnreachable): void {
    this.context.logger.debug({ err: error.cause ?? error, peer: this.peer, address: this.address }, 'REST connector lost its peer');
    this.address = undefined;
    this.setReachable(false);
  }

  private setReachable(reachable: boolean): void {
    if (this.reachable === reachable || this.closed) return;
    this.reachable = reachable;
    const parameters = [...this.byName.keys()];
    if (reachable) this.context.logger.info({ parameters }, 'connector connected');
    else this.context.logger.warn({ parameters }, 'connector lost its peer; values age until it answers again');
  }
}
