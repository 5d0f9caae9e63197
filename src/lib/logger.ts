import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import { ValueError } from '../errors.js';
import { traceLogMixin } from '../tracing/trace-scope.js';

export type { Logger } from 'pino';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Minimum level (`trace` … `fatal`, or `silent`); default: env `LOG_LEVEL`, else `info`. */
  level?: string;
  /**
   * Human-readable output through `pino-pretty`. Default: on when the destination is a TTY.
   * Used only when the optional `pino-pretty` package is installed; otherwise the output stays
   * NDJSON, which is what log collectors (journald, docker) want anyway.
   */
  pretty?: boolean;
  /** File descriptor to write to: 1 (stdout, the default) or 2 (stderr, used by CLI commands). */
  destination?: 1 | 2;
  /** Bindings on every line, for example `{ resource }`; default pino's `pid` and `hostname`. */
  base?: Record<string, unknown>;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function prettyTarget(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('pino-pretty');
  } catch {
    return undefined;
  }
}

/**
 * The product's logger: pino, one JSON object per line, level from the option, else env
 * `LOG_LEVEL`, else `info`. Lines are written synchronously, so nothing is lost when a CLI
 * command exits right after logging.
 *
 * @throws ValueError when the level is not a pino level.
 * @example
 * const log = createLogger({ level: 'debug' }).child({ resource });
 * log.info({ ms: 3 }, 'heartbeat written');
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = (options.level ?? process.env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LEVELS.includes(level)) {
    throw new ValueError(`log level ${JSON.stringify(level)} is not one of ${LEVELS.join(', ')}`);
  }
  const fd = options.destination ?? 1;
  const tty = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  const target = (options.pretty ?? tty) ? prettyTarget() : undefined;
  // Every line logged while a trace is current carries its traceId (see src/tracing).
  const settings = { level, mixin: traceLogMixin, ...(options.base === undefined ? {} : { base: options.base }) };
  if (target !== undefined) {
    return pino(settings, pino.transport({ target, options: { destination: fd } }));
  }
  return pino(settings, pino.destination({ dest: fd, sync: true }));
}
