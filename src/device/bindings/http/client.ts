/**
 * The HTTP binding's client: JSON over HTTP(S), on TCP or a Unix socket. Every call goes through
 * one undici connection pool built once (keep-alive, connections opened as calls need them), and
 * every declared workflow or state gets its request options built once, so the proxy hop stays
 * at a fraction of a millisecond (DESIGN.md §11). undici's pool rather than `node:http`: a
 * proxied call costs the sidecar about 40% less CPU (see src/lib/undici-pool.ts), for about
 * 17 ms of loading when the first client is built and a few MB of memory. Each answer is read
 * whole through undici's handler interface, with no stream per answer (src/lib/whole-exchange.ts).
 */
import type { Dispatcher } from 'undici';
import { RuntimeError, ValueError } from '../../../errors.js';
import type { Logger } from '../../../lib/logger.js';
import { LIMITS } from '../../../limits.js';
import type { DeviceClient, DeviceClientSettings, DeviceForm, DeviceHealth, StateReader, WorkflowInvoker } from '../../client.js';
import { DeviceAnswerError, DeviceReplyError, type DeviceCall } from '../../errors.js';
import { connectionFailure } from '../../failure.js';
import { probeHealth } from '../../health.js';
import { assertTimeout, shown } from '../../values.js';
import { Pool, POOL_OPTIONS, RequestCut } from '../../../lib/undici-pool.js';
import { exchangeWhole, type WholeAnswer } from '../../../lib/whole-exchange.js';
import { replyOf } from './reply.js';
import { exportingSpans, timedSpan } from '../../../tracing/span-export.js';
import { childSpan, formatTraceparent, TRACEPARENT_HEADER, type TraceContext } from '../../../tracing/trace-context.js';
import { currentTrace, traceField } from '../../../tracing/trace-scope.js';
import { assertDevicePath, type HttpTarget } from './target.js';

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const ACCEPT_HEADERS = { accept: 'application/json' };

/** One declared workflow or state, as the client sends it: built once, by invoker() or reader(). */
interface Route {
  readonly method: Dispatcher.HttpMethod;
  /** The base path and the declared path. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly call: DeviceCall;
  readonly timeoutMs: number;
}

/** One call in flight: what ends it early, and why it was cut if it was. */
interface Flight {
  readonly cut: RequestCut;
  timedOut: boolean;
  /** Set when the caller's signal aborted it: the call rejects with the signal's reason. */
  aborted?: boolean;
  /** Set by close(): the error the call rejects with. */
  abandoned?: RuntimeError;
}

/** The HTTP binding's {@link DeviceClient}. */
export class HttpDeviceClient implements DeviceClient {
  readonly description: string;
  private readonly pool: Dispatcher;
  private readonly maxReplyBytes: number;
  private readonly log: Logger;
  /** The probe of health(): HEAD on the base path, which any HTTP server answers somehow. */
  private readonly probe: Route;
  private closed = false;
  /** The calls in flight, so close() can abandon them. */
  private readonly inFlight = new Set<Flight>();

  constructor(
    private readonly target: HttpTarget,
    settings: DeviceClientSettings,
  ) {
    this.description = target.description;
    this.maxReplyBytes = settings.maxReplyBytes;
    this.log = settings.logger;
    this.pool = openPool(target);
    this.probe = this.route('HEAD', '/', LIMITS.deviceTimeoutMs);
  }

  invoker(form: DeviceForm): WorkflowInvoker {
    if (form.method !== undefined && form.method !== 'POST') {
      throw new ValueError(`${form.label} has method ${shown(form.method)}; device workflows are called with POST`);
    }
    const route = this.route('POST', assertDevicePath(form.path, `${form.label} path`), form.timeoutMs);
    return (args, options) => this.call(route, args, options?.signal);
  }

  reader(form: DeviceForm): StateReader {
    if (form.method !== undefined && form.method !== 'GET') {
      throw new ValueError(`${form.label} has method ${shown(form.method)}; device states are read with GET`);
    }
    const route = this.route('GET', assertDevicePath(form.path, `${form.label} path`), form.timeoutMs);
    return () => this.call(route, undefined);
  }

  health(options: { timeoutMs?: number; path?: string } = {}): Promise<DeviceHealth> {
    const timeoutMs = options.timeoutMs === undefined ? this.probe.timeoutMs : assertTimeout(options.timeoutMs);
    if (options.path !== undefined) {
      const probe = this.route('GET', assertDevicePath(options.path, 'device health path'), timeoutMs);
      return probeHealth(() => this.call(probe, undefined), true);
    }
    return probeHealth(() => this.call({ ...this.probe, timeoutMs }, undefined));
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const flight of this.inFlight) {
      flight.abandoned = new RuntimeError(
        `device ${this.description} was closed while a call was waiting for the device; the call was abandoned`,
      );
      flight.cut.cut(flight.abandoned);
    }
    return this.pool.destroy().then(() => undefined);
  }

  private route(method: 'GET' | 'HEAD' | 'POST', path: string, timeoutMs: number): Route {
    const headers = method === 'POST' ? JSON_HEADERS : ACCEPT_HEADERS;
    const call = { target: this.description, method, path };
    return { method, path: this.target.basePath + path, headers, call, timeoutMs: assertTimeout(timeoutMs) };
  }

  /**
   * Sends one request and reads its reply under the route's timeout. An abort of `signal` closes
   * the connection, which is how an HTTP device learns that the caller stopped waiting.
   */
  private call(route: Route, value: unknown, signal?: AbortSignal): Promise<unknown> {
    // The caller's trace, read before the first await (see trace-scope.ts) and passed on.
    const parent = currentTrace();
    if (parent === undefined || !exportingSpans()) return this.callOnce(route, value, signal, parent);
    // Exported as a span of its own, whose id the device receives as its parent.
    const trace = childSpan(parent);
    const { method, path } = route.call;
    const span = {
      name: `device ${method} ${path}`,
      kind: 'client' as const,
      trace,
      attributes: { 'http.request.method': method, 'url.path': path },
    };
    return timedSpan(span, () => this.callOnce(route, value, signal, trace));
  }

  private async callOnce(route: Route, value: unknown, signal: AbortSignal | undefined, trace: TraceContext | undefined): Promise<unknown> {
    if (this.closed) throw new RuntimeError(`device ${this.description} is closed; ${route.call.method} ${route.call.path} was not sent`);
    signal?.throwIfAborted();
    const body = value === undefined ? undefined : jsonBody(value, route.call);
    const flight: Flight = { cut: new RequestCut(), timedOut: false };
    const onAbort = (): void => {
      flight.aborted = true;
      flight.cut.cut(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // One timer bounds the whole call, body included: it closes the connection, which fails
    // whatever is being waited for (the head or the body).
    const timer = setTimeout(() => {
      flight.timedOut = true;
      flight.cut.cut(new DOMException(`no answer within ${route.timeoutMs} ms`, 'TimeoutError'));
    }, route.timeoutMs);
    this.inFlight.add(flight);
    const started = performance.now();
    try {
      const answer = await this.exchange(route, body, flight, trace);
      const reply = replyOf(answer.statusCode, answer.body, answer.header('content-type'), route.call, this.maxReplyBytes);
      this.logDone(route.call, answer.statusCode, started, trace);
      return reply;
    } catch (err) {
      if (flight.abandoned) throw flight.abandoned;
      if (flight.aborted) {
        this.logDone(route.call, 'aborted', started, trace);
        throw signal!.reason;
      }
      const failure = isDeviceReplyFailure(err) ? err : connectionFailure(err, route.call, route.timeoutMs, flight.timedOut);
      this.logDone(route.call, failure.code, started, trace);
      throw failure;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.inFlight.delete(flight);
    }
  }

  /** Sends one request; resolves with the whole answer, its body read up to the reply limit. */
  private exchange(route: Route, body: string | undefined, flight: Flight, trace: TraceContext | undefined): Promise<WholeAnswer> {
    // The work's trace, so the device's own logs can join it (W3C Trace Context).
    const headers = trace === undefined ? route.headers : { ...route.headers, [TRACEPARENT_HEADER]: formatTraceparent(trace) };
    return exchangeWhole(
      this.pool,
      { method: route.method, path: route.path, headers, body: body ?? null, cut: flight.cut },
      this.maxReplyBytes,
    );
  }

  private logDone(call: DeviceCall, outcome: number | string, started: number, trace: TraceContext | undefined): void {
    if (!this.log.isLevelEnabled('debug')) return;
    const ms = Math.round((performance.now() - started) * 1000) / 1000;
    this.log.debug({ method: call.method, path: call.path, outcome, ms, ...traceField(trace) }, 'device call');
  }
}

/** Errors replyOf already classified (answer and reply errors), passed through unchanged. */
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

/** The pool of one device's connections; the call's own timer bounds each call. */
function openPool(target: HttpTarget): Dispatcher {
  const scheme = target.secure ? 'https' : 'http';
  if ('socketPath' in target.connect) return new Pool(`${scheme}://localhost`, { ...POOL_OPTIONS, socketPath: target.connect.socketPath });
  const { hostname, port } = target.connect;
  return new Pool(`${scheme}://${hostname}${port === '' ? '' : `:${port}`}`, POOL_OPTIONS);
}
