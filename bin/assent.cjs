#!/usr/bin/env node
// The `assent` command: runs the compiled CLI (built by `npm run build`, which `npm install` runs through `prepare`).
//
// CommonJS on purpose: libuv sizes its thread pool once, when it is first used, and loading an ES
// module already uses it, so the size (bin/thread-pool.cjs) must be set here, before anything is imported.
'use strict';
const { threadPoolSize } = require('./thread-pool.cjs');

process.env.UV_THREADPOOL_SIZE = threadPoolSize(process.env);
import('../dist/app/cli/main.js').then((m) => m.main(process.argv.slice(2)));
