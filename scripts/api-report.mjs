#!/usr/bin/env node
/**
 * The API report gate: runs API Extractor on the built `.d.ts` of every entry point in
 * package.json's `exports` and compares each with its committed report in `api/`.
 *
 *   node scripts/api-report.mjs            fails when an entry point's API differs from its report
 *   node scripts/api-report.mjs --update   rewrites the reports (`npm run api:update`)
 *
 * Run it after `npm run build`. One configuration serves every entry point, so adding a subpath
 * to `exports` adds its report. Only API changes fail, and problems API Extractor finds in the
 * `.d.ts` files: TSDoc style, missing release tags and documentation are not API changes. Types
 * an entry point uses without exporting them are noted in its report (`ae-forgotten-export`),
 * so a change to them shows up there too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const reportFolder = join(root, 'api');
const update = process.argv.includes('--update');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** `.` -> `semantic-middleware`, `./registration` -> `registration`: the report's file name. */
function reportName(subpath) {
  return subpath === '.' ? pkg.name : subpath.slice(2).replaceAll('/', '-');
}

/** The entry points: every `exports` key with a `types` condition. */
function entryPoints() {
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([subpath, target]) => ({ subpath, name: reportName(subpath), types: join(root, target.types) }));
}

function configFor(entry, scratch) {
  return {
    projectFolder: root,
    mainEntryPointFilePath: entry.types,
    compiler: {
      // The published `.d.ts` files as a NodeNext consumer reads them; the strict compile
      // without skipLibCheck is scripts/check-published-types.mjs's job.
      overrideTsconfig: {
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, types: ['node'] },
        files: [entry.types],
      },
    },
    // API Extractor writes the report into a scratch folder (as its own "committed" copy too, so
    // it has nothing to compare); this script normalizes it and compares it with api/ itself.
    apiReport: { enabled: true, reportFolder: scratch, reportTempFolder: scratch, reportFileName: entry.name },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: 'lf',
    messages: {
      compilerMessageReporting: { default: { logLevel: 'warning' } },
      extractorMessageReporting: {
        default: { logLevel: 'warning' },
        // The package does not tag releases (@public, @beta): everything exported is public.
        'ae-missing-release-tag': { logLevel: 'none' },
        'ae-undocumented': { logLevel: 'none' },
        // A type shared by several entry points is exported by one of them (the OGM by the root);
        // another entry using it is fine. The note in the report makes a change to it visible.
        'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
        // {@link} targets exported by another entry point, or internal: documentation only.
        'ae-unresolved-link': { logLevel: 'none' },
      },
      // TSDoc style is the docs' concern, not the API's.
      tsdocMessageReporting: { default: { logLevel: 'none' } },
    },
  };
}

/**
 * The report without the footers API Extractor cannot be told to leave out: the release tag
 * (`// @public`, the same on every item here) and `// (undocumented)`, so documenting a member
 * is not an API change. A `//` line that only separated a note from such a footer goes too.
 */
function normalize(report) {
  const lines = report.split('\n').filter((line) => !/^\s*\/\/ (@public|\(undocumented\)|@public \(undocumented\))$/.test(line));
  return lines.filter((line, i) => !(/^\s*\/\/$/.test(line) && !/^\s*\/\/ /.test(lines[i + 1] ?? ''))).join('\n');
}

function extract(entry, config, compilerState, scratch) {
  const result = Extractor.invoke(config, {
    localBuild: true,
    compilerState,
    messageCallback(message) {
      // "Analysis will use the bundled TypeScript version ...", once per entry point.
      if (message.messageId === 'console-preamble') message.handled = true;
    },
  });
  if (result.errorCount + result.warningCount > 0) return undefined;
  const report = readFileSync(join(scratch, `${entry.name}.api.md`), 'utf8');
  return normalize(report).replace(`API Report File for "${pkg.name}"`, `API Report File for "${pkg.name}${entry.subpath.slice(1)}"`);
}

/** Compares with (or, with --update, writes) the committed report; true when they agree. */
function settle(entry, report, scratch) {
  const committedPath = join(reportFolder, `${entry.name}.api.md`);
  let committed;
  try {
    committed = readFileSync(committedPath, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed === report) return true;
  if (update) {
    writeFileSync(committedPath, report);
    console.log(`updated api/${entry.name}.api.md`);
    return true;
  }
  const built = join(scratch, `${entry.name}.built.api.md`);
  writeFileSync(built, report);
  const label = `api/${entry.name}.api.md`;
  spawnSync(
    'diff',
    ['-u', '--label', `${label} (committed)`, '--label', `${label} (built)`, committed === undefined ? '/dev/null' : committedPath, built],
    {
      stdio: 'inherit',
    },
  );
  console.error(
    `\nThe API of '${pkg.name}${entry.subpath.slice(1)}' changed; if that is intended, run \`npm run api:update\` and commit api/.`,
  );
  return false;
}

const scratch = mkdtempSync(join(tmpdir(), 'api-report-'));
try {
  const entries = entryPoints();
  const configs = entries.map((entry) =>
    ExtractorConfig.prepare({
      configObject: configFor(entry, scratch),
      configObjectFullPath: undefined,
      packageJsonFullPath: join(root, 'package.json'),
    }),
  );
  // One TypeScript program for every entry point: building it is most of the run time.
  const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: entries.map((e) => e.types) });
  const failed = entries.filter((entry, i) => {
    const report = extract(entry, configs[i], compilerState, scratch);
    return report === undefined || !settle(entry, report, scratch);
  });
  if (failed.length > 0) {
    console.error(`API report check failed for: ${failed.map((e) => e.subpath).join(', ')}`);
    process.exitCode = 1;
  } else if (!update) {
    console.log(`API reports in api/ match the built entry points (${entries.map((e) => e.subpath).join(', ')}).`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
