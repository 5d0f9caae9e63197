/**
 * The one seam between the sidecar and its co-located device: JSON over HTTP, on loopback TCP or a
 * Unix socket. Both kinds go through one keep-alive `node:http` agent built once, so the proxy hop
 * stays at a fraction of a millisecond (DESIGN.md §11); they differ only in how it connects.
 * Node's own client rather than undici's: the server side has loaded it already, where undici
 * would add about 7 MB to every sidecar's memory for the same round trip.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { RuntimeError, ValueError } from '../errors.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import { DeviceAnswerError, DeviceReplyError, type DeviceCall } from './errors.js';
import { transportFailure } from './failure.js';
import { readReply } from './reply.js';
import { assertDevicePath, assertTimeout, resolveTarget, shown, type DeviceTarget, type ResolvedTarget } from './target.js';

export type { DeviceTarget } from './target.js';

/** One request to the device. */
export interface DeviceRequest {
  method: 'GET' | 'POST';
  /** Absolute path on the device, e.g. `/open`; a base URL's own path is put in front of it. */
  path: string;
  /** Sent as JSON; nothing is sent when undefined. */
  body?: unknown;
  /** Time the device gets to answer, body included. */
  timeoutMs: number;
}

/** JSON requests to the co-located device. */
export interface DeviceTransport {
  /**
   * Sends one request and returns the parsed JSON answer, or `null` for an empty 2xx body.
   * @throws DeviceUnreachableError, DeviceTimeoutError, DeviceAnswerError (non-2xx),
   * DeviceReplyError (not JSON, too large); ValueError for a bad path or timeout; RuntimeError
   * after close().
   */
  request(req: DeviceRequest): Promise<unknown>;
  /**
   * Closes the pool. Requests still in flight are abandoned (they reject with a RuntimeError):
   * whoever closes the transport has stopped waiting for them, and a hung device must not hold
   * a stopping sidecar past its shutdown deadline. Repeatable.
   */
  close(): Promise<void>;
  /** The target in logs and errors: `http://127.0.0.1:9000` or `unix:/run/door.sock`. */
  readonly description: string;
}

/** Options of {@link openDeviceTransport}. */
export interface DeviceTransportOptions {
  /** Largest accepted reply body. Default {@link LIMITS.deviceReplyMaxBytes}. */
  maxReplyBytes?: number;
  /** Logger for one debug line per request (`{ method, path, status, ms }`). Default: silent. */
  logger?: Logger;
}

/**
 * Opens a transport to the device at `target` (`{ url }` for TCP, `{ socketPath }` for a Unix
 * socket). Nothing connects until the first request, so the bridge may start later.
 * @throws ValueError naming the value when the URL is not http(s) or the socket path is unusable.
 * @example
 * const device = openDeviceTransport({ socketPath: '/run/door-bridge.sock' });
 * await device.request({ method: 'POST', path: '/open', body: {}, timeoutMs: 5000 }); // { ok: true, door: 'open' }
 * await device.close();
 */
export function openDeviceTransport(target: DeviceTarget, options: DeviceTransportOptions = {}): DeviceTransport {
  const resolved = resolveTarget(target);
  const maxReplyBytes = assertByteLimit(options.maxReplyBytes ?? LIMITS.deviceReplyMaxBytes);
  const log = (options.logger ?? createLogger({ level: 'silent' })).child({ device: resolved.description });
  return new AgentTransport(resolved, maxReplyBytes, log);
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const ACCEPT_HEADERS = { accept: 'application/json' };

/**
 * Idle connections are closed after this long unless the device announces its own keep-alive
 * timeout (the agent then closes them a second before it): shorter than the 5 s of a Node or
 * Python bridge, so a request is never written to a connection the bridge is just closing.
 */
const IDLE_CONNECTION_MS = 4_000;

/** One call in flight: its request, and why it was cut if it was. */
interface Flight {
  request?: ClientRequest;
  timedOut: boolean;
  /** Set by close(): the error the call rejects with. */
  abandoned?: RuntimeError;
}

class AgentTransport implements DeviceTransport {
  readonly description: string;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly host: { hostname: string; port: string } | { socketPath: string };
  private closed = false;
  /** The calls in flight, so close() can abandon them. */
  private readonly inFlight = new Set<Flight>();

  constructor(
    private readonly target: ResolvedTarget,
    private readonly maxReplyBytes: number,
    private readonly log: Logger,
  ) {
    this.description = target.description;
    const secure = target.origin.startsWith('https:');
    const agentOptions = { keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
    this.agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.send = secure ? httpsRequest : httpRequest;
    const origin = new URL(target.origin);
    this.host = target.socketPath !== undefined ? { socketPath: target.socketPath } : { hostname: origin.hostname, port: origin.port };
  }

  async request(req: DeviceRequest): Promise<unknown> {
    const path = assertDevicePath(req.path);
    const timeoutMs = assertTimeout(req.timeoutMs);
    if (this.closed) throw new RuntimeError(`device transport ${this.description} is closed; ${req.method} ${path} was not sent`);
    const call: DeviceCall = { target: this.description, method: req.method, path };
    const body = req.body === undefined ? undefined : jsonBody(req.body, call);
    const flight: Flight = { timedOut: false };
    // One timer bounds the whole call, body included: it cuts the connection, which fails
    // whatever is being waited for (the head or the body).
    const timer = setTimeout(() => {
      flight.timedOut = true;
      flight.request?.destroy();
    }, timeoutMs);
    this.inFlight.add(flight);
    const started = performance.now();
    try {
      const response = await this.exchange(req.method, this.target.basePath + path, body, flight);
      const value = await readReply(
        { statusCode: response.statusCode ?? 0, headers: response.headers, body: response },
        call,
        this.maxReplyBytes,
      );
      this.logDone(call, response.statusCode ?? 0, started);
      return value;
    } catch (err) {
      if (flight.abandoned) throw flight.abandoned;
      const failure = isDeviceReplyFailure(err) ? err : transportFailure(err, call, timeoutMs, flight.timedOut);
      this.logDone(call, failure.code, started);
      throw failure;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(flight);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const flight of this.inFlight) {
      flight.abandoned = new RuntimeError(
        `device transport ${this.description} was closed while a call was waiting for the device; the call was abandoned`,
      );
      flight.request?.destroy();
    }
    this.agent.destroy();
  }

  /** Sends one request; resolves with the response once its head has arrived. */
  private exchange(method: string, path: string, body: string | undefined, flight: Flight): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const headers = body === undefined ? ACCEPT_HEADERS : { ...JSON_HEADERS, 'content-length': Buffer.byteLength(body) };
      flight.request = this.send({ ...this.host, agent: this.agent, method, path, headers }, resolve);
      flight.request.on('error', reject);
      flight.request.end(body);
    });
  }

  private logDone(call: DeviceCall, outcome: number | string, started: number): void {
    if (!this.log.isLevelEnabled('debug')) return;
    const ms = Math.round((performance.now() - started) * 1000) / 1000;
    this.log.debug({ method: call.method, path: call.path, outcome, ms }, 'device call');
  }
}

/** Errors readReply already classified (answer and reply errors), passed through unchanged. */
function isDeviceReplyFailure(err: unknown): err is DeviceAnswerError | DeviceReplyError {
  return err instanceof DeviceAnswerError || err instanceof DeviceReplyError;
}

function jsonBody(value: unknown, call: DeviceCall): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new ValueError(`the body of ${call.method} ${call.path} for device ${call.target} is not JSON: ${(err as Error).message}`);
  }
  if (text === undefined)
    throw new ValueError(`the body of ${call.method} ${call.path} for device ${call.target} is not JSON (got ${typeof value})`);
  return text;
}

function assertByteLimit(bytes: unknown): number {
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new ValueError(`maxReplyBytes ${shown(bytes)} is not a positive whole number of bytes`);
  }
  return bytes;
}
