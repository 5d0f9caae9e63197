/**
 * A recording hop between a sidecar and its mock PLC bridge, on a Unix socket of its own: every
 * call is forwarded to the bridge unchanged, and logged with the Operation IRI the sidecar sends
 * in the body (`{"operation": ...}`) as soon as it ARRIVES (the bridge's own log has a line per
 * call only once the call ended), so a test can kill the sidecar while the device works. A call
 * forwarded to the bridge is one execution on the device: the bridge runs a workflow to its end
 * even when the caller is gone, as a PLC would. The caller going away never aborts the device.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { rm } from 'node:fs/promises';

/** One call the device received. */
export interface DeviceCall {
  path: string;
  /** The Operation IRI of a dispatched Operation; undefined for a direct workflow call or a state read. */
  operation?: string;
  /** When the call reached the recorder. */
  at: number;
  /** The bridge's status, once it answered (null when the bridge died first). */
  status?: number | null;
  /** When the bridge's answer (or its failure) came back. */
  answeredAt?: number;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function operationOf(body: Buffer): string | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    const op = (value as { operation?: unknown } | null)?.operation;
    return typeof op === 'string' ? op : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The recorder. `calls` grows as calls arrive; `waitFor` resolves once a probe holds.
 * @example
 * const device = await DeviceRecorder.start(join(dir, 'door1-rec.sock'), bridge.socket!);
 * startDoor1(group, dir, store, { bridge: { ...bridge, socket: device.socket } });
 */
export class DeviceRecorder {
  readonly calls: DeviceCall[] = [];
  readonly #waiters = new Set<() => void>();

  private constructor(
    readonly socket: string,
    private readonly target: string,
    private readonly server: Server,
  ) {}

  /** Listens on `socket` and forwards to the bridge listening on `target`. */
  static async start(socket: string, target: string): Promise<DeviceRecorder> {
    await rm(socket, { force: true });
    const server = createServer();
    const recorder = new DeviceRecorder(socket, target, server);
    server.on('request', (req, res) => void recorder.#forward(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
    return recorder;
  }

  /** Executions of `operation` on the device (calls forwarded with it). */
  executions(operation: string): DeviceCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }

  /** Resolves once `probe(calls)` is true; rejects after `timeoutMs` naming `what`. */
  waitFor(probe: (calls: DeviceCall[]) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (probe(this.calls)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!probe(this.calls)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`device: no ${what} within ${timeoutMs} ms; calls so far: ${JSON.stringify(this.calls)}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  #changed(): void {
    for (const check of [...this.#waiters]) check();
  }

  async #forward(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const body = await readBody(req).catch(() => Buffer.alloc(0));
    const call: DeviceCall = { path: new URL(req.url ?? '/', 'http://device').pathname, at: Date.now() };
    const operation = operationOf(body);
    if (operation !== undefined) call.operation = operation;
    this.calls.push(call);
    this.#changed();
    const headers = { ...req.headers, 'content-length': String(body.length) };
    const upstream = request({ socketPath: this.target, method: req.method, path: req.url, headers }, (answer) => {
      call.status = answer.statusCode ?? null;
      call.answeredAt = Date.now();
      res.on('error', () => undefined);
      if (!res.destroyed) res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      this.#changed();
    });
    upstream.on('error', () => {
      call.status ??= null;
      call.answeredAt ??= Date.now();
      res.destroy();
      this.#changed();
    });
    upstream.end(body);
  }
}
