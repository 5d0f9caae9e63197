// What one remote-store request costs the sidecar's process: CPU (process.cpuUsage over N
// requests, this process only; the store is `store serve --memory` in a process of its own) and
// latency p50, for a small SELECT (10 rows, parsed into bindings) and a heartbeat-shaped
// DELETE/INSERT, through:
//   - this build's remote store (keep-alive connections of its own, src/store/remote-transport.ts);
//   - the path it replaced: sparql-http-client's SimpleClient over Node's global fetch, with an
//     AbortSignal.timeout per request, as the remote store sent before;
//   - a bare keep-alive http.request with the same headers and nothing else (the floor);
//   - with BENCH_REFERENCE_DIST, that build's remote store as well.
// Every arm parses SELECT answers with this build's parser, so the difference is the transport.
// Arms are interleaved and their order rotated each round; figures are medians over rounds.
// Then the RSS of a settled process that ran requests through each client (BENCH_RSS=0 skips it).
// BENCH_STORE_N requests per arm and round (default 500), BENCH_STORE_ROUNDS rounds (default 7).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import SimpleClient from 'sparql-http-client/SimpleClient.js';
import { barePost, Children, envInt, median } from './sidecar-support.mjs';
import { writeResults } from './results.mjs';
import { percentile, round } from './support.mjs';

const N = envInt('BENCH_STORE_N', 500);
const ROUNDS = envInt('BENCH_STORE_ROUNDS', 7);
const WARMUP = 100;
const REFERENCE_DIST = process.env.BENCH_REFERENCE_DIST;
const THIS_DIST = new URL('../dist/', import.meta.url);
const GRAPH = 'urn:bench:store-client';
const SELECT = `SELECT ?s ?p ?o WHERE { GRAPH <${GRAPH}> { ?s ?p ?o } } LIMIT 10`;
const JSON_RESULTS = 'application/sparql-results+json';
const FORM = 'application/x-www-form-urlencoded';

/** A heartbeat-shaped compare-free update on a subject of the arm's own. */
const heartbeat = (arm, i) => {
  const s = `<urn:bench:hb:${encodeURIComponent(arm)}>`;
  const p = '<https://w3id.org/circularfactory/Service#lastHeartbeat>';
  return `DELETE { GRAPH <${GRAPH}> { ${s} ${p} ?old } } INSERT { GRAPH <${GRAPH}> { ${s} ${p} "${i}" } } WHERE { OPTIONAL { GRAPH <${GRAPH}> { ${s} ${p} ?old } } }`;
};

/** Each client: `select(query)` resolving to bindings and `update(text)`, and `close()`. */
async function clients(url) {
  const { parseSelectJson } = await import(new URL('store/sparql-json.js', THIS_DIST).href);
  const { openRemoteStore } = await import(new URL('store/remote-store.js', THIS_DIST).href);
  const all = { 'this build': openRemoteStore({ queryUrl: url }) };
  if (REFERENCE_DIST) {
    const reference = pathToFileURL(`${resolve(REFERENCE_DIST)}/store/remote-store.js`).href;
    all['reference build'] = (await import(reference)).openRemoteStore({ queryUrl: url });
  }

  const simple = new SimpleClient({
    endpointUrl: url,
    updateUrl: url,
    headers: { accept: JSON_RESULTS },
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(30_000) }),
  });
  const viaFetch = async (text, update) => {
    const res = await simple.postUrlencoded(text, { update });
    const body = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${body}`);
    return body;
  };
  all['sparql-http-client over fetch'] = {
    select: async (q) => parseSelectJson(await viaFetch(q, false), url),
    update: (u) => viaFetch(u, true),
    close: () => Promise.resolve(),
  };

  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const { hostname, port, pathname } = new URL(url);
  const bare = (body, type) => barePost(agent, { hostname, port, path: pathname }, body, type);
  all['bare keep-alive http.request'] = {
    select: async (q) => parseSelectJson(await bare(`query=${encodeURIComponent(q)}`, FORM), url),
    update: (u) => bare(u, 'application/sparql-update'),
    close: () => Promise.resolve(agent.destroy()),
  };
  return all;
}

/** One arm's round of one kind: per-request CPU (µs, this process) and latency p50 (ms). */
async function round1(arm, client, kind) {
  const ms = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    if (kind === 'select') {
      const rows = await client.select(SELECT);
      if (rows.length !== 10) throw new Error(`${arm}: ${rows.length} rows, expected 10`);
    } else await client.update(heartbeat(arm, i));
    ms.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / N, p50: percentile(ms, 50) };
}

async function measure(url) {
  const all = await clients(url);
  const arms = Object.keys(all);
  const kinds = ['select', 'update'];
  const results = new Map(kinds.flatMap((k) => arms.map((a) => [`${k} / ${a}`, []])));
  const loads = [round(loadavg()[0])];
  try {
    for (const kind of kinds) for (const arm of arms) for (let i = 0; i < WARMUP; i++) await round1Once(arm, all[arm], kind, i);
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of kinds) {
        // Rotated each round, so drift in the machine's load falls on every arm alike.
        for (const arm of arms.map((_, i) => arms[(i + r) % arms.length]))
          results.get(`${kind} / ${arm}`).push(await round1(arm, all[arm], kind));
      }
      loads.push(round(loadavg()[0]));
    }
  } finally {
    for (const client of Object.values(all)) await client.close();
  }
  const REFERENCE = 'sparql-http-client over fetch';
  const rows = kinds.flatMap((kind) =>
    arms.map((arm) => {
      const rounds = results.get(`${kind} / ${arm}`);
      const ref = results.get(`${kind} / ${REFERENCE}`);
      const cpu = median(rounds.map((x) => x.cpuUs));
      const refCpu = median(ref.map((x) => x.cpuUs));
      return {
        request: kind,
        client: arm,
        n: N * ROUNDS,
        cpu_us_per_request: round(cpu),
        cpu_vs_fetch: `${round((cpu / refCpu) * 100)}%`,
        cpu_paired_diff_us: round(median(rounds.map((x, i) => x.cpuUs - ref[i].cpuUs))),
        p50_ms: round(median(rounds.map((x) => x.p50))),
      };
    }),
  );
  return { rows, loads, raw: Object.fromEntries([...results].map(([k, v]) => [k, v.map((x) => [round(x.cpuUs), round(x.p50)])])) };
}

async function round1Once(arm, client, kind, i) {
  if (kind === 'select') await client.select(SELECT);
  else await client.update(heartbeat(arm, i));
}

/**
 * A settled process's RSS (MB) after 300 requests through `client` ('store': this build's
 * remote store; 'fetch': sparql-http-client over fetch), garbage collected, idle for a second.
 */
async function settledRss(url, client) {
  const script = `
    const url = process.argv[1];
    let select;
    if (process.argv[2] === 'store') {
      const { openRemoteStore } = await import(${JSON.stringify(new URL('store/remote-store.js', THIS_DIST).href)});
      const store = openRemoteStore({ queryUrl: url });
      select = (q) => store.select(q);
    } else {
      const { default: SimpleClient } = await import('sparql-http-client/SimpleClient.js');
      const c = new SimpleClient({ endpointUrl: url, headers: { accept: 'application/sparql-results+json' } });
      select = async (q) => JSON.parse(await (await c.postUrlencoded(q)).text());
    }
    for (let i = 0; i < 300; i++) await select(${JSON.stringify(SELECT)});
    for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 400)); }
    console.log(process.memoryUsage().rss);
    process.exit(0);`;
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script, url, client], {
    cwd: root,
    timeout: 60_000,
  });
  return Number(stdout.trim()) / 1_048_576;
}

async function rssRows(url) {
  const runs = { store: [], fetch: [] };
  for (let i = 0; i < 3; i++) for (const client of Object.keys(runs)) runs[client].push(await settledRss(url, client));
  const label = { store: 'this build (remote store)', fetch: 'sparql-http-client over fetch' };
  return Object.entries(runs).map(([client, mb]) => ({
    client: label[client],
    runs: mb.length,
    rss_mb_median: round(median(mb)),
    rss_mb: mb.map(round).join(', '),
  }));
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-store-client-'));
  const kids = new Children(dir);
  try {
    const store = await kids.daemon('store', ['store', 'serve', '--memory', '--port', '0']);
    const url = store.first.trim();
    const data = Array.from({ length: 50 }, (_, i) => `<urn:bench:s${i}> <urn:bench:p> "value ${i}"`).join(' . ');
    const { openRemoteStore } = await import(new URL('store/remote-store.js', THIS_DIST).href);
    const loader = openRemoteStore({ queryUrl: url });
    await loader.update(`INSERT DATA { GRAPH <${GRAPH}> { ${data} } }`);
    await loader.close();
    const { rows, loads, raw } = await measure(url);
    const rss = process.env.BENCH_RSS === '0' ? [] : await rssRows(url);
    const meta = {
      store: '`store serve --memory` in its own process, loopback HTTP',
      rounds: `${ROUNDS} of ${N} requests per arm and kind, after ${WARMUP} warm-up each; arms interleaved, order rotated; medians over rounds`,
      cpu: 'process.cpuUsage of this process per request (client side only), SELECT answers parsed into bindings',
      reference: REFERENCE_DIST
        ? `also the build in ${REFERENCE_DIST}`
        : 'sparql-http-client over fetch (cpu_vs_fetch, cpu_paired_diff_us)',
      cpus: `${cpus().length}, shared: load average ${loads[0]} at start, ${loads.at(-1)} at end (per round: ${loads.slice(1).join(', ')})`,
      rounds_raw: JSON.stringify(raw),
    };
    const sections = [{ title: 'CPU and latency per request', rows }];
    if (rss.length > 0) sections.push({ title: 'RSS of a settled process after 300 SELECTs (--expose-gc, 3 runs each)', rows: rss });
    writeResults('store-client', { meta, sections });
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    console.error(`store-client benchmark failed: ${error.message}; logs in ${dir}`);
    throw error;
  } finally {
    await kids.stopAll();
  }
}
