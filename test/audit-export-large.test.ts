/**
 * The audit log's export at scale (docs/audit.md "Export"): 100,000 entries, sealed into the chain, exported as JSON
 * lines and as CSV through the API; every entry arrives once, in chain order, and the server (in this process) holds
 * a bounded part of the file at a time: its live heap (measured after full collections) grows by well under a quarter
 * of the file's size while the file streams.
 * Both stores.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { consentSuite } from './helpers/consent-org.js';

const ENTRIES = 100_000;
// A full garbage collection before each heap sample, so that the samples count what is kept, not garbage not yet
// collected (the trick of V8's own tests: expose `gc` at run time).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** The heap in use after a full collection (bytes). */
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
const s = consentSuite();

/** Reads a response body piece by piece, counting lines and bytes, sampling the heap as it goes. */
async function drain(
  res: Response,
): Promise<{ lines: number; bytes: number; peakHeap: number; first: string; last: string }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let lines = 0;
  let bytes = 0;
  let peakHeap = 0;
  let tail = '';
  let first = '';
  let last = '';
  let reads = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const text = tail + decoder.decode(value, { stream: true });
    const parts = text.split('\n');
    tail = parts.pop()!;
    for (const line of parts) {
      if (!first) first = line;
      last = line;
      lines++;
    }
    if (reads++ % 100 === 0) peakHeap = Math.max(peakHeap, liveHeap());
  }
  return { lines, bytes, peakHeap, first, last };
}

describe('exporting 100,000 audit entries', () => {
  it('streams every entry, in order, as JSON lines and CSV, with the heap bounded well below the file size', async () => {
    const { t, org } = s;
    await t.store.db.execute(sql`INSERT INTO org_audit_log (id, org_id, source, action, target_type, target_id, detail)
      SELECT ('ffffffff-ffff-7fff-8fff-' || lpad(to_hex(g), 12, '0'))::uuid, ${org.orgId}, 'import', 'purpose.update', 'purpose', md5(g::text),
        jsonb_build_object('n', g, 'note', repeat('x', 200))
      FROM generate_series(1, ${ENTRIES}) g`);
    const token = org.tokens.owner!;
    const url = `${t.base}/organizations/${org.orgId}/audit-log`;
    // Entry IDs after every UUIDv7 of the set-up, in the order of g: the export's order (by ID) is the chain's.
    // Seal first (the verification reads and seals everything), so that the exports measure exporting.
    const verified = await fetch(`${url}/verify`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await verified.json()) as { Valid: boolean }).Valid).toBe(true);

    const baseline = liveHeap();
    const jsonl = await drain(
      await fetch(`${url}/export?format=jsonl`, { headers: { authorization: `Bearer ${token}` } }),
    );
    const csv = await drain(await fetch(`${url}/export?format=csv`, { headers: { authorization: `Bearer ${token}` } }));
    const total = (await (await fetch(`${url}/verify`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      Entries: number;
    };
    expect(jsonl.lines).toBe(total.Entries);
    expect(total.Entries).toBeGreaterThanOrEqual(ENTRIES);
    expect(csv.lines).toBe(total.Entries + 1); // the header row
    expect(JSON.parse(jsonl.first).Seq).toBe(1);
    expect(JSON.parse(jsonl.last).Seq).toBe(total.Entries);
    // Streamed: the heap never held the file (tens of MB) at once.
    expect(jsonl.bytes).toBeGreaterThan(40 * 2 ** 20);
    // Live heap (after a full collection) against the file: a server that built the file would hold all of it.
    expect(jsonl.peakHeap - baseline, `live heap growth, ${jsonl.bytes}-byte file`).toBeLessThan(jsonl.bytes / 4);
    expect(csv.peakHeap - baseline, `live heap growth, ${csv.bytes}-byte file`).toBeLessThan(csv.bytes / 4);
  }, 300_000);
});
