#!/usr/bin/env node
// The `assent` command: runs the compiled CLI (built by `npm run build`, which `npm install` runs through `prepare`).
//
// CommonJS on purpose: libuv sizes its thread pool once, when it is first used, and loading an ES
// module already uses it, so the size must be set here, before anything is imported.
// argon2id hashing and verification run on that pool (README "Configuration", UV_THREADPOOL_SIZE).
// Its default of 4 threads caps password checks at 4 cores on a bigger machine and, on a smaller
// one, time-slices more 19 MiB verifications than there are cores, which costs their caches
// (bench/README.md). At least 2, so that a slow DNS lookup (libuv lets those take half the pool)
// never holds every thread.
'use strict';
const { availableParallelism } = require('node:os');

if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = String(Math.max(2, availableParallelism()));
import('../dist/cli.js').then((m) => m.main(process.argv.slice(2)));
