/**
 * Resolves what faces the co-located device: the device target, the workflows and state
 * properties proxied to it, and the local API the device calls.
 */
import { join } from 'node:path';
import { EVENT_TRIGGER_WORKFLOW_NAME } from '../iri/endpoints.js';
import { parseDeviceTarget } from '../device/index.js';
import { ValueError } from '../errors.js';
import { defaultOf } from '../settings.js';
import { nameIn, sourceAt, systemdDirectory } from './config-layers.js';
import type { DeviceConfig, LocalApiConfig, StateConfig, WorkflowConfig } from './config-types.js';
import {
  absolutePath,
  devicePathProblem,
  expandIri,
  nameProblem,
  readTokens,
  report,
  socketPathProblem,
  at,
  type ResolveContext,
} from './config-values.js';

const isText = (v: unknown): v is string => typeof v === 'string';

/** Resolves a Unix socket path setting and checks its length. */
function socketAt(ctx: ResolveContext, path: string[], value: string): string {
  const absolute = absolutePath(ctx, path, value);
  const problem = socketPathProblem(absolute);
  if (problem) report(ctx, path, problem, absolute);
  return absolute;
}

const DEVICE_KEYS = ['target', 'url', 'socket'] as const;

/** `device.target` text from the deprecated `device.url` or `device.socket`, reported as deprecated. */
function legacyTarget(ctx: ResolveContext, key: 'url' | 'socket', value: string): string {
  const source = sourceAt(ctx.merged, ['device', key]);
  ctx.deprecations.push({ old: nameIn(source, `device.${key}`), use: nameIn(source, 'device.target') });
  return key === 'url' ? value : `unix:${value}`;
}

/**
 * The device target (`device.target`, or the deprecated `device.url` / `device.socket`), checked
 * by the device layer's `parseDeviceTarget`; a relative socket path is made absolute. Undefined
 * when none is configured.
 */
export function resolveDevice(ctx: ResolveContext): DeviceConfig | undefined {
  const given = DEVICE_KEYS.filter((key) => at(ctx, ['device', key]) !== undefined);
  const timeout = at(ctx, ['device', 'timeoutMs']);
  const timeoutMs = typeof timeout === 'number' ? timeout : defaultOf('device.timeoutMs');
  if (given.length > 1) {
    report(ctx, ['device'], `give one of ${given.map((k) => `device.${k}`).join(', ')}, not several (device.target is the one to use)`);
    return undefined;
  }
  const key = given[0];
  const value = key === undefined ? undefined : at(ctx, ['device', key]);
  const health = deviceHealth(ctx);
  if (key === undefined || !isText(value)) {
    if (key === undefined && timeout !== undefined) report(ctx, ['device'], 'needs target (only timeoutMs is set)');
    return undefined;
  }
  const path = ['device', key];
  let target = key === 'target' ? value : legacyTarget(ctx, key, value);
  const socket = target.startsWith('unix:') ? target.slice('unix:'.length) : undefined;
  // An empty path is left to parseDeviceTarget to refuse: made absolute, it would name the directory.
  if (socket !== undefined && socket.trim() !== '') target = `unix:${absolutePath(ctx, path, socket)}`;
  else if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/iu.test(target)) {
    report(ctx, path, 'must not hold credentials (user:password@)', value);
    return { target, timeoutMs, ...health };
  }
  try {
    parseDeviceTarget(target);
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    report(ctx, path, `is not a usable device target (expected unix:/path/to.sock or http(s)://host:port): ${error.message}`);
  }
  return { target, timeoutMs, ...health };
}

/** `device.healthIntervalMs` (default from the table) and `device.healthPath` (checked like a workflow's path), when set. */
function deviceHealth(ctx: ResolveContext): Pick<DeviceConfig, 'healthIntervalMs' | 'healthPath'> {
  const interval = at(ctx, ['device', 'healthIntervalMs']);
  const healthIntervalMs = typeof interval === 'number' ? interval : defaultOf('device.healthIntervalMs');
  const path = at(ctx, ['device', 'healthPath']);
  if (!isText(path)) return { healthIntervalMs };
  const problem = devicePathProblem(path);
  if (problem) report(ctx, ['device', 'healthPath'], problem, path);
  return { healthIntervalMs, healthPath: path };
}

function classAt(ctx: ResolveContext, path: string[], value: unknown): string {
  if (!isText(value)) return '';
  const expanded = expandIri(value);
  if ('problem' in expanded) report(ctx, path, expanded.problem, value);
  return 'iri' in expanded ? expanded.iri : '';
}

type Item = Record<string, unknown>;

/** Checks name (valid, unique, not reserved), path and timeout common to workflows and states. */
function common(
  ctx: ResolveContext,
  list: 'workflows' | 'states',
  item: Item,
  i: number,
  seen: Set<string>,
): { name: string; path: string; timeoutMs: number } {
  const field = (key: string): string[] => [list, String(i), key];
  const name = isText(item.name) ? item.name : '';
  const bad = isText(item.name) ? nameProblem(name) : undefined;
  if (bad) report(ctx, field('name'), bad, name);
  else if (seen.has(name)) report(ctx, field('name'), `is declared twice in ${list}`, name);
  else if (list === 'workflows' && name === EVENT_TRIGGER_WORKFLOW_NAME)
    report(ctx, field('name'), 'is reserved for the built-in event trigger', name);
  seen.add(name);
  const path = isText(item.path) ? item.path : '';
  const pathBad = isText(item.path) ? devicePathProblem(path) : undefined;
  if (pathBad) report(ctx, field('path'), pathBad, path);
  const device = at(ctx, ['device', 'timeoutMs']);
  const timeoutMs =
    typeof item.timeoutMs === 'number' ? item.timeoutMs : typeof device === 'number' ? device : defaultOf('device.timeoutMs');
  return { name, path, timeoutMs };
}

const items = (ctx: ResolveContext, list: string): Item[] => {
  const value = at(ctx, [list]);
  return Array.isArray(value) ? value.map((v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Item) : {})) : [];
};

/** The workflows, CURIEs expanded, names checked. */
export function resolveWorkflows(ctx: ResolveContext): WorkflowConfig[] {
  const seen = new Set<string>();
  return items(ctx, 'workflows').map((item, i) => ({
    ...common(ctx, 'workflows', item, i, seen),
    capabilityClass: classAt(ctx, ['workflows', String(i), 'capabilityClass'], item.capabilityClass),
    workflowClass: classAt(ctx, ['workflows', String(i), 'workflowClass'], item.workflowClass),
    method: 'POST' as const,
  }));
}

/** The state properties, CURIEs expanded, names checked. */
export function resolveStates(ctx: ResolveContext): StateConfig[] {
  const seen = new Set<string>();
  return items(ctx, 'states').map((item, i) => ({
    ...common(ctx, 'states', item, i, seen),
    capabilityClass: classAt(ctx, ['states', String(i), 'capabilityClass'], item.capabilityClass),
    statePropertyClass: classAt(ctx, ['states', String(i), 'statePropertyClass'], item.statePropertyClass),
  }));
}

function loopbackApi(ctx: ResolveContext, port: unknown): LocalApiConfig | false {
  const tokenFile = at(ctx, ['localApi', 'tokenFile']);
  if (typeof port !== 'number') report(ctx, ['localApi', 'port'], 'is required with localApi.tokenFile');
  if (!isText(tokenFile)) {
    report(ctx, ['localApi', 'tokenFile'], 'is required with localApi.port: the loopback local API needs a token');
    return false;
  }
  const file = absolutePath(ctx, ['localApi', 'tokenFile'], tokenFile);
  const token = readTokens(ctx, ['localApi', 'tokenFile'], file);
  if (token !== undefined && typeof token !== 'string' && token.some((t) => t.workflows !== undefined))
    report(
      ctx,
      ['localApi', 'tokenFile'],
      'limits a token to workflows, which the local API runs none of by name: drop the third field',
      file,
    );
  return typeof port === 'number' && token !== undefined ? { port, tokenFile: file, token } : false;
}

/**
 * The local API: `false`, `{ socket }`, or `{ port, tokenFile }` on 127.0.0.1. Default: a
 * socket `local.sock` in `$RUNTIME_DIRECTORY` (systemd) or else in the state directory. The
 * watchdog serves none.
 */
export function resolveLocalApi(ctx: ResolveContext, stateDir: string): LocalApiConfig | false {
  if (ctx.purpose === 'watchdog') return false;
  const whole = at(ctx, ['localApi']);
  if (whole === false) return false;
  if (whole !== undefined) {
    if (whole === true) report(ctx, ['localApi'], 'must be false or a mapping ({ socket } or { port, tokenFile })', whole);
    return false;
  }
  const socket = at(ctx, ['localApi', 'socket']);
  const port = at(ctx, ['localApi', 'port']);
  if (isText(socket)) {
    if (port !== undefined) report(ctx, ['localApi'], 'give either socket or port, not both');
    return { socket: socketAt(ctx, ['localApi', 'socket'], socket) };
  }
  if (port !== undefined || at(ctx, ['localApi', 'tokenFile']) !== undefined) return loopbackApi(ctx, port);
  const dir = systemdDirectory(ctx.env, 'RUNTIME_DIRECTORY') ?? stateDir;
  const path = join(dir, 'local.sock');
  const problem = socketPathProblem(path);
  if (problem)
    report(ctx, ['localApi', 'socket'], `${problem}; set localApi.socket, or run from a shorter directory`, path, { kind: 'default' });
  return { socket: path };
}
