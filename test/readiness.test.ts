import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

describe('readiness follows the database (GET /readyz)', () => {
  it('is 200 while the database answers', async () => {
    const res = await call(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('is 503 once the database stops answering, while liveness stays 200', async () => {
    await t.store.close();
    const ready = await call(`${t.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'database unavailable' });
    expect((await call(`${t.url}/healthz`)).status).toBe(200);
  });
});
