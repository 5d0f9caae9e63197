import { Worker } from 'node:worker_threads';
import { StoreError } from '../errors.js';
import type { EmbeddedStoreOptions } from './embedded-store.js';
import { stderrLogger, type StoreLogger } from './store-logger.js';
import { rebuildError, type ThreadAnswer, type ThreadRequest, type ThreadStoreOptions } from './store-thread-protocol.js';
import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from './triple-store.js';

type Request = ThreadRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Opens the embedded store (see {@link openEmbeddedStore}, whose options it takes) on a worker
 * thread of its own: Oxigraph's evaluation, the journal's writes and their fsyncs then run beside
 * this thread's work instead of between it, so a process that is both requester and receiver
 * (the library level) uses a second core. Every guarantee of the embedded store holds, since
 * it is one: the worker applies requests one at a time in the order they were made, and a
 * conditional update is atomic among all callers of this store.
 *
 * The cost: each request crosses threads twice (tens of microseconds of latency), and the worker
 * is a second JavaScript heap (some megabytes resident). Worth it where throughput matters more
 * than one Operation's latency and a few megabytes; the sidecar, whose idle memory counts, keeps
 * its embedded store on its main thread.
 *
 * @example
 * const store = await openEmbeddedStoreThread({ dataDir: '/var/lib/my-cell' });
 */
export async function openEmbeddedStoreThread(options: EmbeddedStoreOptions = {}): Promise<EmbeddedStoreThread> {
  return EmbeddedStoreThread.open(options);
}

/** The embedded store on a worker thread; see {@link openEmbeddedStoreThread}. */
export class EmbeddedStoreThread implements TripleStore {
  /** Oxigraph follows SPARQL 1.1 here; see {@link TripleStore.deletesWithUnboundVariables}. */
  readonly deletesWithUnboundVariables = true;
  private requests = 0;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  /** Why no request is taken any more: closed, or the worker stopped. */
  private stopped: StoreError | undefined;

  private constructor(
    private readonly worker: Worker,
    readonly description: string,
    private readonly logger: StoreLogger,
  ) {
    worker.on('message', (answer: ThreadAnswer) => this.answered(answer));
    worker.on('error', (error) => this.stop(`${this.description}: its thread failed: ${error.message}`));
    worker.on('exit', (code) => this.stop(`${this.description}: its thread exited (code ${code})`));
    // An idle store does not keep the process alive; a request in flight does (see send).
    worker.unref();
  }

  /** Use {@link openEmbeddedStoreThread}. */
  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStoreThread> {
    const workerData: ThreadStoreOptions = {
      ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
      ...(options.compactAfterBytes !== undefined && { compactAfterBytes: options.compactAfterBytes }),
    };
    const logger = options.logger ?? stderrLogger;
    const worker = new Worker(new URL('./store-thread-worker.js', import.meta.url), { workerData, execArgv: workerExecArgv() });
    const description = await new Promise<string>((resolve, reject) => {
      const exited = (code: number): void => reject(new StoreError(`the embedded store's thread exited (code ${code}) before it opened`));
      const onMessage = (answer: ThreadAnswer): void => {
        if ('log' in answer) return logger[answer.log](answer.obj, answer.msg);
        worker.off('message', onMessage).off('error', reject).off('exit', exited);
        if ('ready' in answer) resolve(answer.ready);
        else if ('failed' in answer) reject(rebuildError(answer.failed));
      };
      worker.on('message', onMessage).on('error', reject).on('exit', exited);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return new EmbeddedStoreThread(worker, `${description} on its own thread`, logger);
  }

  get requestCount(): number {
    return this.requests;
  }

  async select(query: string): Promise<Bindings[]> {
    return (await this.send({ method: 'select', text: query })) as Bindings[];
  }

  async ask(query: string): Promise<boolean> {
    return (await this.send({ method: 'ask', text: query })) as boolean;
  }

  async update(update: string): Promise<void> {
    await this.send({ method: 'update', text: update });
  }

  async conditionalUpdate(update: string, check: ConditionalUpdateCheck): Promise<boolean> {
    return (await this.send({ method: 'conditionalUpdate', text: update, before: check.before, after: check.after })) as boolean;
  }

  /** As the embedded store's; `onProgress` is called once, when the whole document is in. */
  async load(document: string, options: LoadOptions): Promise<void> {
    const { onProgress, ...rest } = options;
    const written = (await this.send({ method: 'load', text: document, options: rest })) as number;
    onProgress?.(written);
  }

  async dump(options: { graph?: string } = {}): Promise<string> {
    return (await this.send({ method: 'dump', options })) as string;
  }

  /** Closes the store as the embedded store's `close` does, then ends its thread. Repeat calls do nothing. */
  async close(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.send({ method: 'close' });
    } finally {
      this.stop(`${this.description} is closed`);
      await this.worker.terminate();
    }
  }

  private send(request: Request): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  private answered(answer: ThreadAnswer): void {
    if ('log' in answer) return this.logger[answer.log](answer.obj, answer.msg);
    if (!('id' in answer)) return;
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    this.waiting.delete(answer.id);
    if (this.waiting.size === 0) this.worker.unref();
    this.requests = answer.requests;
    if (answer.error) waiting.reject(rebuildError(answer.error));
    else waiting.resolve(answer.value);
  }

  /** Refuses every later request, and fails those in flight, with `message`. */
  private stop(message: string): void {
    if (this.stopped) return;
    this.stopped = new StoreError(message, this.description);
    for (const waiting of this.waiting.values()) waiting.reject(this.stopped);
    this.waiting.clear();
    this.worker.unref();
  }
}

// Node's options of this process, for the worker, without those that say what the main script
// is (`node --input-type=module -e ...`): they would make Node refuse the worker's own file.
function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (arg.startsWith('--input-type=')) continue;
    if (['--input-type', '-e', '--eval', '-p', '--print'].includes(arg))
      i += 1; // and its value
    else if (!/^--(eval|print)=/u.test(arg)) kept.push(arg);
  }
  return kept;
}
