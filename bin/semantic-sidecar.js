#!/usr/bin/env node
// Launcher: the CLI runs from its bundle, dist/cli-bundle/main.js (built by `npm run build` from
// dist/cli/main.js). A bare `--version` is answered before the CLI and its commands are loaded:
// a shell asking for it should not wait.
const [flag, ...rest] = process.argv.slice(2);
if (rest.length === 0 && (flag === '--version' || flag === '-V')) {
  const { packageVersion } = await import('../dist/cli/version.js');
  process.stdout.write(`${packageVersion()}\n`);
} else {
  const { main } = await import('../dist/cli-bundle/main.js');
  await main(process.argv);
}
