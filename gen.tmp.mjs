import { generateDataset } from './bench/lib/consent-dataset.mjs';
import { execFileSync } from 'node:child_process';
const url = process.argv[2];
const env = { ...process.env, DATABASE_URL: url, ASSENT_SECRET: process.env.ASSENT_SECRET };
const out = JSON.parse(execFileSync('node', ['bin/assent.js', 'import', 'examples/demo.json'], { env }).toString());
const orgId = out.organisations.acme.id;
await generateDataset(url, orgId, 20000);
console.log(orgId);
