#!/usr/bin/env node
/**
 * Proves that the published types work for a consumer (`npm run api:types`, after a build):
 *
 * 1. packs the package (`npm pack`, the same files a registry would get);
 * 2. unpacks the tarball into a scratch project's `node_modules/semantic-middleware`, next to
 *    the package's production dependencies only (linked from this repo's install, so it works
 *    offline; devDependencies such as `@types/express` are absent, as they are for a consumer),
 *    and the consumer's own `@types/node`;
 * 3. compiles a file importing every entry point with `tsc --noEmit`: `strict`, `skipLibCheck:
 *    false` (every `.d.ts` the imports reach is checked), `module`/`moduleResolution: NodeNext`;
 * 4. runs `attw` (Are the Types Wrong?) on the tarball, for ESM consumers: the package is ESM
 *    only, so CommonJS `require` and node10 resolution are out of scope.
 *
 * `preserveSymlinks` keeps module resolution inside the scratch project: without it, a linked
 * dependency would resolve its own imports from this repo's full install, devDependencies
 * included, and hide a missing dependency. Pass `--keep` to keep the scratch folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const keep = process.argv.includes('--keep');

/** Top-level packages of the install that a production install of this package would hold. */
function productionPackages() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages)
    .filter(([path, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && !entry.dev)
    .map(([path]) => path.slice('node_modules/'.length))
    .filter((name) => existsSync(join(root, 'node_modules', name)));
}

function link(modules, name) {
  const target = join(modules, name);
  mkdirSync(dirname(target), { recursive: true });
  if (!existsSync(target)) symlinkSync(join(root, 'node_modules', name), target, 'dir');
}

/** One import of every entry point in `exports`, and a little use of each, typed. */
function consumerSource() {
  const subpaths = Object.keys(pkg.exports).filter((subpath) => subpath !== './package.json');
  const imports = subpaths.map((subpath, i) => `import * as entry${i} from '${pkg.name}${subpath.slice(1)}';`);
  return `${imports.join('\n')}
import type { RequestListener } from 'node:http';
import { OGM, openStore, OperationStatus, type TripleStore } from '${pkg.name}';
import { registerService, type RegisterServiceOptions } from '${pkg.name}/registration';
import { SemanticMiddleware, type SemanticMiddlewareOptions } from '${pkg.name}/middleware';

export const entries: readonly object[] = [${subpaths.map((_, i) => `entry${i}`).join(', ')}];

export async function use(options: RegisterServiceOptions): Promise<RequestListener> {
  const store: TripleStore = await openStore({ kind: 'memory' });
  const ogm = new OGM({ store });
  await registerService(ogm, options);
  const settings: SemanticMiddlewareOptions = { ogm, resourceIri: options.resourceIri, port: 0 };
  const status: OperationStatus = OperationStatus.QUEUED;
  return new SemanticMiddleware({ ...settings, namedGraph: status }).app;
}
`;
}

/** Runs a Node CLI; its output is shown only when it fails. */
function run(what, file, args, cwd) {
  try {
    execFileSync(process.execPath, [file, ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
    console.log(`ok: ${what}`);
  } catch (error) {
    process.stdout.write(error.stdout ?? '');
    process.stderr.write(error.stderr ?? '');
    throw new Error(`${what} failed`, { cause: error });
  }
}

const work = mkdtempSync(join(tmpdir(), 'published-types-'));
try {
  const packed = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--offline', '--pack-destination', work], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tarball = join(work, JSON.parse(packed)[0].filename);

  const consumer = join(work, 'consumer');
  const modules = join(consumer, 'node_modules');
  const installed = join(modules, pkg.name);
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const name of [...productionPackages(), '@types/node']) link(modules, name);

  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'strict-consumer', private: true, type: 'module' }));
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2022'],
        types: ['node'],
        noEmit: true,
        preserveSymlinks: true,
      },
      files: ['index.ts'],
    }),
  );
  writeFileSync(join(consumer, 'index.ts'), consumerSource());

  run(
    'tsc --noEmit in a strict NodeNext consumer (skipLibCheck: false)',
    join(root, 'node_modules/typescript/bin/tsc'),
    ['-p', consumer],
    consumer,
  );
  run(
    'attw on the packed tarball (ESM consumers)',
    join(root, 'node_modules/@arethetypeswrong/cli/dist/index.js'),
    [tarball, '--profile', 'esm-only'],
    work,
  );
  console.log('The published types compile in a strict consumer.');
} catch (error) {
  if (error.stderr && !error.cause) process.stderr.write(error.stderr);
  console.error(`\nPublished types check failed${keep ? ` (scratch project kept in ${work})` : ''}: ${error.message.split('\n')[0]}`);
  process.exitCode = 1;
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}
