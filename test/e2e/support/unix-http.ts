/**
 * HTTP over a Unix socket (the sidecar's local API) with node:http, as a bridge in any language
 * would call it. Bodies are sent as given: an object as JSON, a string raw (to send malformed
 * JSON on purpose).
 */
import { request } from 'node:http';

/** An answer: status, content type, raw text and, when the text is JSON, its value. */
export interface UnixAnswer {
  status: number;
  contentType: string | undefined;
  text: string;
  json: unknown;
}

/** Options of {@link unixRequest}. */
export interface UnixRequestOptions {
  /** An object is sent as JSON; a string is sent raw. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Default 20 s. */
  timeoutMs?: number;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One request to `path` on the HTTP server listening at `socketPath`.
 * @example const { status, json } = await unixRequest(sock, 'POST', '/operations', { body: { capabilityClass, operationClass } });
 */
export function unixRequest(socketPath: string, method: string, path: string, options: UnixRequestOptions = {}): Promise<UnixAnswer> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers = { ...(body !== undefined && { 'content-type': 'application/json' }), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers, timeout: options.timeoutMs ?? 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text, json: parsed(text) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} on ${socketPath}: no answer in time`)));
    req.on('error', reject);
    req.end(body);
  });
}
