/**
 * Where the work under way came from, for the audit log (docs/audit.md "Entries"): the HTTP layer opens an activity
 * around each request's handler (src/platform/http/activity.ts), the CLI around each command; what runs outside both
 * (sweeps, retries) is `system`. Node.js's `AsyncLocalStorage` carries it, so that the services that write audit
 * entries need not pass it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Through what a change came: the JSON API, the web console, `assent import`, another CLI command, or Assent itself.
 * (docs/audit.md "Entries").
 */
export type ChangeSource = 'api' | 'console' | 'import' | 'cli' | 'system';

/** The activity a change belongs to. */
export interface Activity {
  source: ChangeSource;
  /** The request's `X-Request-Id` ("" outside a request). */
  requestId: string;
  /** The client's IP address, as `request.ip` gives it ("" outside a request). */
  clientIp: string;
}

const storage = new AsyncLocalStorage<Activity>();
const SYSTEM: Activity = Object.freeze({ source: 'system', requestId: '', clientIp: '' });

/**
 * Runs `fn` inside `activity`: everything it starts, synchronously or not, sees it.
 * @returns what `fn` returns.
 */
export function runInActivity<T>(activity: Activity, fn: () => T): T {
  return storage.run(activity, fn);
}

/** The activity under way; `system` outside any. */
export function currentActivity(): Activity {
  return storage.getStore() ?? SYSTEM;
}
