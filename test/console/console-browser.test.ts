/**
 * The web console in a real browser: headless Chromium (Debian's, driven by playwright-core)
 * opens the console a watchdog serves over a cell of three sidecars on a served store, signs in
 * with the plant's token by keyboard, and sees, without reloading: the three Services live, a
 * dispatched Operation go from queued or running to done, a running one cancelled with the
 * Cancel button, and a sidecar killed with -9 go stale and be swept. It saves a screenshot.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { compactIri } from '../../src/iri/curie.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup, ROOT, type Proc } from '../support/sidecar-process.js';
import { requestCli, servedStore, startDoor1, startRobot1, type CellStore } from '../e2e/support/cell.js';
import { startBridge, startSidecar, type SidecarProc } from '../e2e/support/daemons.js';
import { chromiumPath, launchChromium } from './support/browser.js';

const chromium = chromiumPath();
const TOKEN = 'console-browser-test-token-0123456789';
const STALE_AFTER_S = 3;
// Long enough that a stale Service stays on the page for a while before the sweep.
const SWEEP_INTERVAL_S = 5;
const ROBOT_DELAY_MS = 4000;
const SCREENSHOTS = join(ROOT, 'test-output', 'console');

const conveyorConfig = (deviceUrl: string): string => `resource: plant:conveyor1
serviceClass: plant:ControllerService
device:
  target: ${deviceUrl}
workflows:
  - name: move
    capabilityClass: plant:TransportCapability
    workflowClass: plant:TransportWorkflow
    path: /move
`;

const group = new ProcessGroup();
let dir: string;
let store: CellStore;
let watchdog: Proc;
let consoleUrl: string;
let conveyor: SidecarProc;
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let page: Page;

async function startConveyor1(): Promise<SidecarProc> {
  const bridge = await startBridge(group, 'conveyor1-bridge', { kind: 'conveyor', port: 0 });
  const config = join(dir, 'conveyor1.yaml');
  await writeFile(config, conveyorConfig(bridge.url!));
  const args = ['--config', config, '--store', store.url, '--port', '0', '--heartbeat-interval', '1'];
  return startSidecar(group, 'conveyor1', [...args, '--local-api-socket', join(dir, 'conveyor1-local.sock')], {
    cwd: dir,
    env: { STATE_DIRECTORY: join(dir, 'conveyor1-state') },
  });
}

/** Dispatches a pick to robot1 from the command line, without waiting for it. */
const dispatchPick = () =>
  requestCli(store, ['--capability', 'plant:PickAndPlaceCapability', '--operation-class', 'plant:PickAndPlaceOperation']);

/** The text of a section of the page. */
const section = (id: string): Promise<string> => page.locator(`#${id}`).innerText();

/** Waits until `probe` holds for the section's text (the page updates itself; nothing reloads). */
async function until(id: string, probe: (text: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = await section(id);
    if (probe(text)) return text;
    if (Date.now() - started > timeoutMs)
      throw new Error(`${what}: not within ${timeoutMs} ms; #${id} shows:\n${text}\n${watchdog.tail()}`);
    await page.waitForTimeout(100);
  }
}

/** The row of the section's table that names `iri` (by its CURIE). */
const rowOf = (text: string, iri: string): string => text.split('\n').find((line) => line.includes(compactIri(iri))) ?? '';

const describeInBrowser = 'path' in chromium ? describe : describe.skip;
if ('missing' in chromium) process.stderr.write(`console browser test SKIPPED: ${chromium.missing}\n`);

describeInBrowser(`the web console in headless Chromium${'missing' in chromium ? ` (skipped: ${chromium.missing})` : ''}`, () => {
  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'sm-console-browser-'));
    store = await servedStore(group);
    const robotBridge = await startBridge(group, 'robot1-bridge', { kind: 'robot', port: 0, delayMs: ROBOT_DELAY_MS });
    await startDoor1(group, join(dir, 'door1'), store);
    await startRobot1(group, join(dir, 'robot1'), store, { bridge: robotBridge });
    conveyor = await startConveyor1();
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const timing = ['--staleness-threshold', String(STALE_AFTER_S), '--sweep-interval', String(SWEEP_INTERVAL_S)];
    watchdog = group.cli('watchdog', [
      'watchdog',
      ...store.flags,
      ...timing,
      '--port',
      '0',
      '--console-port',
      '0',
      '--http-token-file',
      tokenFile,
    ]);
    consoleUrl = (JSON.parse(await watchdog.firstLine(30_000)) as { console: string }).console;
    browser = await launchChromium((chromium as { path: string }).path);
    page = await browser.context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await group.cleanup();
    await store?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('should ask for the token, take it by keyboard, and show the three Services live', async () => {
    await page.goto(consoleUrl);
    expect(page.url()).toMatch(/\/console\/login$/u);
    // The form's autofocus may land after the load event on a busy machine; keys typed before it are lost.
    await page.waitForFunction("document.activeElement?.id === 'token'", undefined, { timeout: 10_000 });
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForURL(consoleUrl);
    await until('connection', (t) => t === 'live', 'the event stream');
    const services = await until('services', (t) => (t.match(/\blive\b/gu) ?? []).length >= 3, 'three live Services');
    for (const resource of ['door1', 'robot1', 'conveyor1']) expect(services).toContain(`plant:${resource}`);
    expect(await section('capabilities')).toContain('plant:TransportCapability');
    // Marks this document: a reload would lose it.
    await page.evaluate('window.notReloaded = true');
  }, 60_000);

  it('should filter rows by resource: a CURIE names one resource, a bare word matches part of a name', async () => {
    const shown = async (): Promise<string[]> => {
      const rows = page.locator('#services tr[data-resources]:visible');
      const resources: string[] = [];
      for (let i = 0; i < (await rows.count()); i += 1)
        resources.push(compactIri((await rows.nth(i).getAttribute('data-resources')) ?? ''));
      return resources;
    };
    await page.fill('#filter', 'plant:door1');
    expect(await shown()).toEqual(['plant:door1']);
    await page.fill('#filter', 'r1');
    expect((await shown()).sort()).toEqual(['plant:conveyor1', 'plant:door1']);
    await page.fill('#filter', '');
    expect(await shown()).toHaveLength(3);
  }, 30_000);

  it('should show a dispatched Operation queued or running, then done, without reloading', async () => {
    const run = await dispatchPick();
    expect(run.code).toBe(0);
    const open = await until('open', (t) => rowOf(t, run.operation) !== '', 'the Operation among the open ones');
    expect(rowOf(open, run.operation)).toMatch(/^(queued|running)\b/u);
    const recent = await until('recent', (t) => rowOf(t, run.operation) !== '', 'the Operation among the finished ones');
    expect(rowOf(recent, run.operation)).toMatch(/^done\b/u);
    expect(recent).toContain('requested by cli:');
    expect(await section('activity')).toContain(`${compactIri(run.operation)} is done`);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
  }, 60_000);

  it('should cancel a running Operation from its Cancel button, by keyboard', async () => {
    const run = await dispatchPick();
    await until('open', (t) => /^running\b/u.test(rowOf(t, run.operation)), 'the Operation running');
    await page.focus(`button[data-cancel="${run.operation}"]`);
    await page.keyboard.press('Enter');
    const recent = await until('recent', (t) => rowOf(t, run.operation) !== '', 'the cancelled Operation among the finished ones');
    expect(rowOf(recent, run.operation)).toMatch(/^failed\b.*\bcancelled\b/u);
    expect(recent).toContain('cancelled by console:token');
  }, 60_000);

  it('should show a sidecar killed with -9 go stale, then swept, without reloading, and save a screenshot', async () => {
    expect((await conveyor.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
    const conveyorRow = (t: string) => rowOf(t, conveyor.service);
    await until('services', (t) => /^stale\b/u.test(conveyorRow(t)), 'conveyor1 stale');
    await until('services', (t) => /^unreachable\b/u.test(conveyorRow(t)), 'conveyor1 swept');
    const services = await section('services');
    expect((services.match(/^live\b/gmu) ?? []).length).toBe(2);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await mkdir(SCREENSHOTS, { recursive: true });
    const screenshot = join(SCREENSHOTS, 'console.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    process.stderr.write(`console screenshot: ${screenshot}\n`);
  }, 60_000);
});
