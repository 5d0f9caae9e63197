// `node --import <this file> ...`: records every module the process imports (see import-log-hooks.mjs).
import { register } from 'node:module';

register('./import-log-hooks.mjs', import.meta.url);
