#!/usr/bin/env node
// The demo's consent history (docs/operations.md "Consent history"; docs/web.md "The demo"): individuals of
// Acme whose choices on the Marketing purpose's data attributes drift over time, so that the console's 90-day
// trend has something to draw.
//
// The history is one deterministic timeline from EPOCH on (a seeded random walk per individual and attribute,
// whose odds swing slowly with the date); a file lists the window of the last WINDOW_DAYS days before `now`,
// plus each attribute's last event before it (its state at the window's start). A later window lists the same
// events where the windows overlap, so re-importing a newer file into the same store skips what is recorded
// and adds only what came after (the import's idempotence).
//
// `node scripts/demo-history.mjs` rewrites examples/demo.json with the window ending now;
// scripts/demo.mjs imports a window ending at its own start.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DAY_MS = 86_400_000;
/** The timeline's first day. */
const EPOCH = Date.parse('2025-01-01T00:00:00Z');
/** The days a file lists. */
export const WINDOW_DAYS = 90;
/** Who the history belongs to: these individuals, all with one password. */
const NAMES = [
  'amir',
  'astrid',
  'bruno',
  'camille',
  'chen',
  'daria',
  'elias',
  'emma',
  'farah',
  'felix',
  'greta',
  'hugo',
  'ines',
  'isak',
  'jonas',
  'julia',
  'karin',
  'leo',
  'lina',
  'maja',
  'malik',
  'nora',
  'oskar',
  'petra',
  'quentin',
  'rosa',
  'sami',
  'sara',
  'tomas',
  'ulla',
  'vera',
  'viktor',
  'wilma',
  'yusuf',
  'zoe',
  'ada',
  'bo',
  'cora',
  'dag',
  'eva',
];
export const HISTORY_PASSWORD = 'demo-individual-passphrase';
const ATTRIBUTES = ['email', 'phone'];
const CHANNELS = ['Acme iOS app', 'Acme Android app', 'acme.example web form', 'Acme store'];

/** mulberry32: a small seeded PRNG, so that the timeline is the same on every machine. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The events of one individual from EPOCH until `until` (ms), oldest first. */
function timeline(k, until) {
  const rand = prng(0x5eed + k * 7919);
  const events = [];
  const current = {};
  for (let day = 0; EPOCH + (day + 1) * DAY_MS <= until + DAY_MS; day++) {
    for (const [j, attribute] of ATTRIBUTES.entries()) {
      const r = rand();
      const when = EPOCH + day * DAY_MS + Math.floor(rand() * DAY_MS);
      const pick = rand();
      if (r > 0.035 || when > until) continue;
      // The odds of Allow swing with a period of 150 days (e-mail) and 110 days (phone).
      const allow = 0.5 + 0.35 * Math.sin((2 * Math.PI * day) / (j === 0 ? 150 : 110) + j);
      const value = pick < allow ? 'Allow' : pick < allow + 0.12 ? 'AskMe' : 'Disallow';
      if (current[attribute] === value) continue;
      current[attribute] = value;
      events.push({
        purpose: 'marketing',
        attribute,
        value,
        at: new Date(when).toISOString(),
        channel: CHANNELS[Math.floor(rand() * CHANNELS.length)],
      });
    }
  }
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * The demo's individuals with history, listing the window of WINDOW_DAYS days before `now` and each
 * attribute's last event before it.
 * @param now - ms since the epoch.
 */
export function historyIndividuals(now) {
  const start = now - WINDOW_DAYS * DAY_MS;
  return NAMES.map((name, k) => {
    const all = timeline(k, now);
    const listed = all.filter((e, i) => {
      if (Date.parse(e.at) >= start) return true;
      return !all.slice(i + 1).some((later) => later.attribute === e.attribute && Date.parse(later.at) < start);
    });
    const display = name[0].toUpperCase() + name.slice(1);
    return {
      username: `${name}@acme.example`,
      password: HISTORY_PASSWORD,
      name: display,
      email: `${name}@acme.example`,
      consentHistory: listed,
    };
  });
}

/**
 * The demo import with its history individuals replaced by a window ending at `now`.
 * @param demo - examples/demo.json, parsed.
 * @param now - ms since the epoch.
 */
export function withHistory(demo, now) {
  const acme = demo.organisations.find((o) => o.key === 'acme');
  acme.individuals = [...acme.individuals.filter((i) => !i.consentHistory), ...historyIndividuals(now)];
  return demo;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'demo.json');
  const demo = withHistory(JSON.parse(readFileSync(file, 'utf8')), Date.now());
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`);
  const events = demo.organisations[0].individuals.reduce((n, i) => n + (i.consentHistory?.length ?? 0), 0);
  process.stdout.write(`examples/demo.json: ${events} consent events of ${NAMES.length} individuals\n`);
}
