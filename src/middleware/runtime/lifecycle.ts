import type { RequestListener, Server } from 'node:http';
import { RuntimeError, UnavailableError } from '../../errors.js';
import { markOperationFailed } from '../../registration/operation-status.js';
import { deregisterService } from '../../registration/services.js';
import type { CallbackWorker } from './callback-worker.js';
import { SHUTDOWN_REASON } from '../constants.js';
import type { MiddlewareContext } from './context.js';
import { closeServer } from '../../http/close.js';
import { listen } from '../../http/listen.js';
import { isLoopbackHost } from '../../http/loopback.js';
import { LIMITS } from '../../limits.js';
import { FailureKind } from '../../vocab/status.js';
import { loadMiddlewareMetrics } from '../../metrics/load.js';
import { watchCancels } from './cancel-watch.js';
import { becomeReachable, emitHeartbeat, sweep } from './liveness.js';
import { runLoop, sleep } from './loops.js';
import { Mode } from './mode.js';
import { errorText } from '../operations/operation-data.js';
import { reconstructQueue } from './reconstruct.js';
import { assertRegisteredClasses, registerServiceAndParts } from './register-parts.js';

/**
 * Start and stop of one instance (STYLE §4-6): both return promises, a repeated `start()`
 * returns the same promise, `start()` after `stop()` throws, and a failed start leaves the
 * instance as if never started (the server closed, the Service not reachable), so `start()`
 * may be called again. Background loops await, then sleep, under one AbortSignal.
 */
export class Lifecycle {
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private httpServer: Server | undefined;
  private loops = new AbortController();
  private loopRuns: Promise<void>[] = [];

  constructor(
    private readonly ctx: MiddlewareContext,
    private readonly worker: CallbackWorker,
    private readonly app: () => RequestListener,
  ) {}

  /** The HTTP server, while listening. */
  get server(): Server | undefined {
    return this.httpServer;
  }

  start(): Promise<void> {
    const { phase } = this.ctx;
    if (phase === 'stopping' || phase === 'stopped')
      return Promise.reject(new RuntimeError(`start() after stop(): this instance is ${phase}; create a new one`));
    this.starting ??= this.startOnce().catch((error: unknown) => {
      this.starting = undefined;
      this.ctx.phase = 'new';
      throw error;
    });
    return this.starting;
  }

  stop(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async startOnce(): Promise<void> {
    const { ctx } = this;
    const { host, port, ensureTransport, tls } = ctx.options;
    ctx.phase = 'starting';
    adviseOnOptions(ctx);
    ctx.metrics ??= await loadMiddlewareMetrics(ctx);
    await ensureTransport?.(host, port);
    const bound = await listen(this.app(), { host, port }, { tls });
    this.httpServer = bound.server;
    ctx.bound(bound.port);
    try {
      if (ctx.options.mode === Mode.RESOURCE) await this.register();
    } catch (error) {
      await closeServer(bound.server, 0);
      this.httpServer = undefined;
      throw error;
    }
    this.loops = new AbortController();
    ctx.phase = 'started';
    this.startLoops();
    ctx.logger.info({ address: ctx.address, service: ctx.serviceIri }, 'middleware started');
    this.worker.kick();
  }

  /**
   * Classes first (nothing written when one is missing), then the Service unreachable, its parts,
   * the queue, and only then the address with a heartbeat. On failure the Service is
   * deregistered again, so nothing half-registered is reachable.
   */
  private async register(): Promise<void> {
    const { ctx } = this;
    await assertRegisteredClasses(ctx);
    const { serviceIri, address } = ctx.service('start');
    // Probed while the parts register, so an absent device is warned about at once and known
    // before the Service is reachable.
    const probed = ctx.device.first();
    try {
      await registerServiceAndParts(ctx);
      await ctx.connectors.start(ctx.ogm.db, ctx.options.resourceIri!);
      await reconstructQueue(ctx, serviceIri);
      await probed;
      await becomeReachable(ctx);
    } catch (error) {
      await probed.catch(() => undefined);
      ctx.queue.clear(new UnavailableError('the middleware failed to start; the Operation was not claimed'));
      await ctx.connectors.close();
      await deregisterService(ctx.ogm, serviceIri, ctx.graph).catch((e: unknown) =>
        ctx.logger.error({ err: e, service: serviceIri }, 'start failed and the Service could not be deregistered'),
      );
      ctx.logger.error({ err: error, service: serviceIri }, 'start failed; the Service is not reachable');
      throw error;
    }
    ctx.registered = true;
    ctx.record('registered', {
      service: serviceIri,
      address,
      workflows: [...ctx.registry.workflows.keys()],
      states: [...ctx.registry.states.keys()],
    });
  }

  private startLoops(): void {
    const { ctx } = this;
    const { heartbeatInterval, sweepInterval, mode } = ctx.options;
    const common = { signal: this.loops.signal, logger: ctx.logger };
    if (mode === Mode.RESOURCE && heartbeatInterval !== null) {
      this.loopRuns.push(
        runLoop({
          ...common,
          name: 'heartbeat',
          intervalMs: heartbeatInterval * 1000,
          immediate: false,
          run: () => emitHeartbeat(ctx),
          onError: (e, retryMs) => ctx.record('heartbeat-failed', { error: errorText(e), retryMs }),
        }),
      );
    }
    if (mode === Mode.RESOURCE && ctx.device.watching) {
      this.loopRuns.push(
        runLoop({
          ...common,
          name: 'device-health',
          intervalMs: ctx.options.deviceHealthIntervalMs,
          immediate: false,
          run: () => ctx.device.tick(),
        }),
      );
    }
    if (mode === Mode.RESOURCE) {
      this.loopRuns.push(
        runLoop({ ...common, name: 'cancel-watch', intervalMs: LIMITS.cancelWatchMs, immediate: false, run: () => watchCancels(ctx) }),
      );
    }
    if (mode === Mode.WATCHDOG) {
      this.loopRuns.push(
        runLoop({
          ...common,
          name: 'sweep',
          intervalMs: sweepInterval * 1000,
          immediate: true,
          run: async () => void (await sweep(ctx)),
          onError: (e, retryMs) => ctx.record('sweep-failed', { error: errorText(e), retryMs }),
        }),
      );
    }
  }

  private async stopOnce(): Promise<void> {
    const { ctx } = this;
    await this.starting?.catch(() => undefined);
    ctx.metrics?.close();
    if (ctx.phase === 'new') {
      ctx.phase = 'stopped';
      ctx.activity?.close();
      await ctx.closeConnections();
      return;
    }
    ctx.phase = 'stopping';
    this.loops.abort();
    await Promise.all(this.loopRuns);
    this.worker.stop();
    await this.drainInFlight();
    ctx.queue.clear(new UnavailableError('the middleware is stopping; the Operation was not claimed'));
    ctx.outcomes.close();
    ctx.awaited.close();
    await this.deregister();
    await ctx.connectors.close();
    ctx.record('stopped', { service: ctx.serviceIri });
    ctx.activity?.close();
    if (this.httpServer) await closeServer(this.httpServer, Math.min(ctx.options.shutdownGraceMs, 1000));
    this.httpServer = undefined;
    // After the outcome channels were closed above: no request in flight waits long for a receiver.
    await ctx.closeConnections();
    ctx.phase = 'stopped';
    ctx.logger.info('middleware stopped');
  }

  /** Waits up to `shutdownGraceMs` for in-flight claims, then fails the ones still running. */
  private async drainInFlight(): Promise<void> {
    const { ctx } = this;
    const flights = ctx.queue.flights();
    if (flights.length === 0) return;
    const timer = new AbortController();
    const inTime = await Promise.race([
      Promise.all(flights.map((f) => f.done)).then(() => true),
      sleep(ctx.options.shutdownGraceMs, timer.signal).then(() => false),
    ]);
    timer.abort();
    if (inTime) return;
    for (const flight of ctx.queue.flights()) {
      flight.abort.abort();
      if (!flight.running) continue;
      try {
        await markOperationFailed(ctx.ogm, flight.operationIri, SHUTDOWN_REASON, { kind: FailureKind.SHUTDOWN, ...ctx.graph });
        ctx.logger.warn({ operation: flight.operationIri, graceMs: ctx.options.shutdownGraceMs }, 'in-flight operation failed at shutdown');
        ctx.record('failed', { operation: flight.operationIri, kind: FailureKind.SHUTDOWN, reason: SHUTDOWN_REASON });
      } catch (error) {
        ctx.logger.warn({ operation: flight.operationIri, err: error }, 'in-flight operation could not be failed at shutdown');
      }
    }
  }

  private async deregister(): Promise<void> {
    const { ctx } = this;
    if (!ctx.registered || !ctx.serviceIri) return;
    ctx.registered = false;
    try {
      await deregisterService(ctx.ogm, ctx.serviceIri, ctx.graph);
      ctx.logger.info({ service: ctx.serviceIri }, 'Service deregistered');
      ctx.record('deregistered', { service: ctx.serviceIri });
    } catch (error) {
      ctx.logger.error(
        { err: error, service: ctx.serviceIri },
        'could not deregister at stop; a watchdog sweep will remove the Service once its heartbeat is stale',
      );
    }
  }
}

/** Logs options that are accepted but have no effect, or that will misbehave. */
function adviseOnOptions(ctx: MiddlewareContext): void {
  const { heartbeatInterval, stalenessThreshold, mode } = ctx.options;
  if (mode === Mode.RESOURCE && heartbeatInterval !== null && heartbeatInterval >= stalenessThreshold) {
    ctx.logger.warn(
      { heartbeatInterval, stalenessThreshold },
      'heartbeatInterval is not below stalenessThreshold: sweeps will take this Service for dead between heartbeats',
    );
  }
  adviseOnExposure(ctx);
}

/** Warns when the surface is open to the network without a token, or its address names the wrong scheme. */
function adviseOnExposure(ctx: MiddlewareContext): void {
  const { host, httpToken, tls, address } = ctx.options;
  if (httpToken === undefined && !isLoopbackHost(host)) {
    ctx.logger.warn(
      { host },
      `the HTTP surface listens on ${host}, beyond this machine, without a token: anyone who reaches it can ring the event trigger, run workflows and read state; set httpToken (a sidecar: http.tokenFile or SIDECAR_HTTP_TOKEN_FILE)`,
    );
  }
  if (tls !== undefined && address?.startsWith('http://')) {
    ctx.logger.warn(
      { address },
      'the surface serves HTTPS but the registered address starts with http://: callers will fail; register an https:// address',
    );
  }
}
