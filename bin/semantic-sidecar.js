#!/usr/bin/env node
// Launcher: the CLI lives in dist/cli/main.js (built by `npm run build`).
import { main } from '../dist/cli/main.js';

await main(process.argv);
