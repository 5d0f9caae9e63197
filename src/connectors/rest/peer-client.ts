/**
 * JSON over HTTP to peer middlewares: one keep-alive agent per scheme, one call under one timer,
 * the reply read up to a size limit by the device binding's reader. Node's own client, like the
 * device binding's, so a sidecar loads no second HTTP stack for its peers.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readReply } from '../../device/bindings/http/reply.js';
import { LIMITS } from '../../limits.js';
import { DeviceAnswerError, DeviceReplyError } from '../../device/errors.js';

/** How a peer answered a call: a 2xx reply's JSON, or the status of any other answer. */
export type PeerAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly status: number };

/** A call that got no HTTP answer: refused, reset, or no answer within its time. */
export class PeerUnreachable extends Error {
  constructor(
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(timedOut ? 'no answer in time' : 'no connection', options);
  }
}

/** The reply could not be used: larger than the limit, or not JSON. */
export class PeerReplyUnusable extends Error {}

/** One call to a peer. */
export interface PeerCall {
  readonly method: 'GET' | 'PUT';
  /** Path on the peer's surface, appended to the base address's path. */
  readonly path: string;
  /** JSON body (PUT). */
  readonly body?: unknown;
  readonly token: string | undefined;
  readonly timeoutMs: number;
  readonly maxReplyBytes: number;
}

/** The HTTP client a REST session reaches its peer with. */
export class PeerClient {
  private readonly agents = {
    http: new HttpAgent({ keepAlive: true, timeout: LIMITS.keepAliveIdleMs }),
    https: new HttpsAgent({ keepAlive: true, timeout: LIMITS.keepAliveIdleMs }),
  };

  /**
   * Sends `call` to the peer at `address` (a checked http(s) base URL).
   * @throws PeerUnreachable when no answer came; PeerReplyUnusable for a 2xx reply that is too large or not JSON.
   */
  async send(address: string, call: PeerCall): Promise<PeerAnswer> {
    const url = new URL(address);
    const secure = url.protocol === 'https:';
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
    const options = {
      hostname: url.hostname.replace(/^\[(.*)\]$/u, '$1'),
      port: url.port,
      path: url.pathname.replace(/\/+$/u, '') + call.path,
      method: call.method,
      headers,
      agent: secure ? this.agents.https : this.agents.http,
    };
    let timedOut = false;
    const request = (secure ? httpsRequest : httpRequest)(options);
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy();
    }, call.timeoutMs);
    try {
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        request.on('response', resolve);
        request.on('error', reject);
        if (body !== undefined) request.setHeader('content-length', Buffer.byteLength(body));
        request.end(body);
      });
      // The reader names the call in its errors; this one names no address.
      const answer = { statusCode: response.statusCode ?? 0, headers: response.headers, body: response };
      const value = await readReply(answer, { target: 'peer', method: call.method, path: call.path }, call.maxReplyBytes);
      return { ok: true, value };
    } catch (error) {
      if (error instanceof DeviceAnswerError) return { ok: false, status: error.deviceStatus };
      if (error instanceof DeviceReplyError) throw new PeerReplyUnusable('reply unusable', { cause: error });
      // Anything else happened below HTTP: refused, reset, closed mid-reply, or cut by the timer.
      throw new PeerUnreachable(timedOut, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes every kept-alive connection. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
