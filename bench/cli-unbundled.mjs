// The CLI run from tsc's output, dist/cli/main.js, as bin/semantic-sidecar.js ran it before the
// bundle: the reference the cli-start bench measures the bundle against in the same run.
const { main } = await import('../dist/cli/main.js');
await main(process.argv);
