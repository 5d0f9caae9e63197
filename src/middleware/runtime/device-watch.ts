import { LIMITS } from '../../limits.js';
import { recordDeviceAvailability } from '../../registration/liveness.js';
import { errorText } from '../operations/operation-data.js';
import type { DeviceHealthReport } from '../options.js';
import type { MiddlewareContext } from './context.js';

/**
 * Device-aware health of a resource-mode instance: the configured probe (and the semantic
 * connectors' connection state) decides whether the device is available. The instance is not
 * ready, refuses event triggers and is marked `sm:deviceUnavailableSince` in the graph (so
 * discovery skips it) while it is not. At start one refused probe decides (a timed-out one counts
 * as the first failure), and either is warned about at once; after that `LIMITS.deviceHealthFailuresToDown` failures in a row are needed, so one slow
 * answer on a loaded gateway does not withdraw the Service, and one good answer brings it back.
 */
export class DeviceWatch {
  /** When the device was found unavailable; undefined while it is available. */
  private downSince: Date | undefined;
  private reason: string | undefined;
  private failures = 0;
  /** What the graph says (`null`: available), once written; undefined before the first write. */
  private written: Date | null | undefined;

  constructor(private readonly ctx: MiddlewareContext) {}

  /** Whether anything is watched: a probe, or connectors with sessions. */
  get watching(): boolean {
    return this.ctx.options.deviceHealth !== undefined || this.ctx.connectors.list().length > 0;
  }

  /** Whether the device is available (true when nothing is watched). */
  get available(): boolean {
    return this.downSince === undefined;
  }

  /**
   * That the device is unavailable, for `/readyz` and the event trigger's refusal; undefined while
   * available. The probe's reason is logged, not served: it names the device's socket or address.
   */
  get unavailability(): string | undefined {
    if (this.downSince === undefined) return undefined;
    return `the device of this Service does not answer its health probe (since ${this.downSince.toISOString()})`;
  }

  /**
   * The first probe, at start: a refusal marks the device down, with a warning at once. Call it
   * before the Service becomes reachable, then {@link DeviceWatch.writeGraph}.
   */
  async first(): Promise<void> {
    const report = await this.probe();
    if (report.available) return;
    this.ctx.logger.warn({ reason: report.reason }, 'the device does not answer: its calls fail until it does');
    // A refusal (no socket, nothing listening) is the device being absent; a probe that timed out
    // may be a slow device on a loaded machine, and counts as the first failure of the loop's rule.
    if (report.timedOut === true) this.failures = 1;
    else this.markDown(report.reason);
  }

  /** One probe of the loop, then the graph brought in line. Rejects only when the graph write fails (the loop retries). */
  async tick(): Promise<void> {
    const report = await this.probe();
    if (report.available) {
      this.failures = 0;
      if (this.downSince !== undefined) this.markUp();
    } else {
      this.failures += 1;
      if (this.downSince === undefined && this.failures >= LIMITS.deviceHealthFailuresToDown) this.markDown(report.reason);
      else if (this.downSince !== undefined) this.reason = report.reason;
    }
    await this.writeGraph();
  }

  /** Writes `sm:deviceUnavailableSince` (or removes it) when the graph does not say so yet. */
  async writeGraph(force = false): Promise<void> {
    const wanted = this.downSince ?? null;
    if (!force && this.written !== undefined && this.written === wanted) return;
    const { serviceIri } = this.ctx.service('device health');
    await recordDeviceAvailability(this.ctx.ogm, serviceIri, wanted, this.ctx.graph);
    this.written = wanted;
  }

  private async probe(): Promise<DeviceHealthReport> {
    const { deviceHealth } = this.ctx.options;
    let report: DeviceHealthReport = { available: true };
    if (deviceHealth !== undefined) {
      try {
        report = await deviceHealth();
      } catch (error) {
        report = { available: false, reason: `the health probe failed: ${errorText(error)}` };
      }
    }
    if (report.available && !this.ctx.connectors.connected())
      report = { available: false, reason: "a semantic connector's transport is not connected" };
    return report;
  }

  private markDown(reason: string): void {
    this.downSince = new Date();
    this.reason = reason;
    const { serviceIri } = this.ctx;
    if (this.written !== undefined)
      this.ctx.logger.warn({ service: serviceIri, reason }, 'the device does not answer: its Capabilities are withdrawn from discovery');
    this.ctx.record('device-down', { service: serviceIri, reason });
  }

  private markUp(): void {
    const { serviceIri } = this.ctx;
    this.ctx.logger.info(
      { service: serviceIri, downSince: this.downSince!.toISOString() },
      'the device answers again: its Capabilities are offered again',
    );
    this.downSince = undefined;
    this.reason = undefined;
    this.ctx.record('device-up', { service: serviceIri });
  }
}
