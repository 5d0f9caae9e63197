/**
 * The binding interface: what the sidecar asks of its device, whatever protocol reaches it. A
 * binding (HTTP by URI scheme; MQTT request/response for the workflows the ontology binds to
 * MQTT, in `connectors/mqtt/`) serves one or more URI schemes and opens a
 * {@link DeviceClient} for a target of them; the registry picks the binding by the target's
 * scheme. Modelled on node-wot's `ProtocolClient` and `ProtocolClientFactory`, cut down to the
 * four things a sidecar does with its device: invoke a workflow, read a state, check it is
 * reachable, and close.
 */
import type { Logger } from '../lib/logger.js';
import type { DeviceError } from './errors.js';

/**
 * A declared workflow or state property as a binding receives it (node-wot calls this a form).
 * The name and timeout are checked already; `path` and `method` are the binding's to interpret and
 * check: for HTTP the path on the device and its method.
 */
export interface DeviceForm {
  /** What the form is, for messages: `workflow "open"`, `state property "door"`. */
  readonly label: string;
  /** Where it is on the device, in the binding's terms: for HTTP a path such as `/open`. */
  readonly path: string;
  /** How it is called, in the binding's terms: for HTTP the method. Default: the binding's own. */
  readonly method?: string;
  /**
   * Where the answer comes back, in the binding's terms: for MQTT the response topic of the
   * request. Bindings that answer on the request's own connection (HTTP) take none.
   */
  readonly replyTo?: string;
  /** Time the device gets to answer, reply included. */
  readonly timeoutMs: number;
}

/** Options of one workflow invocation. */
export interface InvokeOptions {
  /**
   * Aborts the call (an Operation cancelled while it runs): the binding stops waiting and, where
   * it can, tells the device (HTTP closes the connection). The call rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** Invokes one workflow: sends the arguments, resolves with the device's JSON answer (`null` for none). */
export type WorkflowInvoker = (args: Record<string, unknown>, options?: InvokeOptions) => Promise<unknown>;

/** Reads one state property live: resolves with the device's JSON value. */
export type StateReader = () => Promise<unknown>;

/** Whether the device answered a health probe: how fast, or the failure that says why not. */
export type DeviceHealth = { readonly reachable: true; readonly ms: number } | { readonly reachable: false; readonly error: DeviceError };

/**
 * The co-located device, reached through one binding. Calls fail with the DeviceErrors of
 * `errors.ts`: DeviceUnreachableError, DeviceTimeoutError, DeviceAnswerError (the device said the
 * call failed), DeviceReplyError (not JSON, too large).
 */
export interface DeviceClient {
  /** The target in logs and errors: `http://127.0.0.1:9000`, `unix:/run/door.sock`. */
  readonly description: string;
  /**
   * Prepares the invocation of a declared workflow: the form is checked and turned into what the
   * binding sends, once, so each call does only the call.
   * @throws ValueError naming the form when the binding cannot use its path or method.
   */
  invoker(form: DeviceForm): WorkflowInvoker;
  /**
   * Prepares the live read of a declared state property, like {@link DeviceClient.invoker}.
   * @throws ValueError naming the form when the binding cannot use its path or method.
   */
  reader(form: DeviceForm): StateReader;
  /**
   * Probes whether the device answers: without `path` any answer counts, a refusal included;
   * with `path` the device must answer that health path with success. Never rejects for an
   * unreachable device (that is the answer); rejects with a RuntimeError after close().
   * @param options.timeoutMs how long the probe waits. Default {@link LIMITS.deviceTimeoutMs}.
   * @param options.path a health path in the binding's terms (for HTTP, read with GET).
   * @throws ValueError naming the path when the binding cannot use it (check it at configuration).
   */
  health(options?: { timeoutMs?: number; path?: string }): Promise<DeviceHealth>;
  /**
   * Closes the client. Calls still in flight are abandoned (they reject with a RuntimeError):
   * whoever closes the client has stopped waiting for them, and a hung device must not hold a
   * stopping sidecar past its shutdown deadline. Later calls reject with a RuntimeError. Repeatable.
   */
  close(): Promise<void>;
}

/** Options of `openDevice`. */
export interface DeviceClientOptions {
  /** Largest accepted reply body. Default {@link LIMITS.deviceReplyMaxBytes}. */
  maxReplyBytes?: number;
  /** Logger for one debug line per call (`{ method, path, outcome, ms }`). Default: silent. */
  logger?: Logger;
}

/** The options a binding is given, checked and completed by `openDevice`. */
export interface DeviceClientSettings {
  /** Largest accepted reply body, in bytes. */
  readonly maxReplyBytes: number;
  /** Logger bound to `{ device: <description> }`. */
  readonly logger: Logger;
}

/**
 * A transport to devices: the URI schemes it serves, how it checks a target, how it opens a
 * client. One folder under `bindings/` each, registered in `registry.ts`.
 */
export interface DeviceBinding {
  /** URI schemes served, lower case and without the colon, e.g. `['http', 'https']`. */
  readonly schemes: readonly string[];
  /**
   * Checks a target of one of its schemes and returns it as logs and errors show it.
   * @throws ValueError naming the value when the target is unusable.
   */
  describe(target: string): string;
  /** Opens a client for a target `describe` accepted; nothing need connect before the first call. */
  open(target: string, settings: DeviceClientSettings): DeviceClient;
}
