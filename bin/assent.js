#!/usr/bin/env node
// The `assent` command: runs the compiled CLI (built by `npm run build`, which `npm install` runs through `prepare`).
import('../dist/cli.js').then((m) => m.main(process.argv.slice(2)));
