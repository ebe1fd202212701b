/** Identifiers of notification work. */
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

/** UUIDv5 namespace of Assent's queue job IDs (a fixed random UUID). */
const QUEUE_NAMESPACE = '5b3c7d0e-9a41-4d8e-b6f2-3e1f7c2a9d14';

/**
 * The pg-boss job ID of one step of a request, the same in every process, so that enqueueing a
 * step twice inserts it once (pg-boss inserts with ON CONFLICT DO NOTHING).
 * @param jobId - the consent request job.
 * @param step - e.g. `batch.3` or `retry.<userID>`.
 */
export function queueJobId(jobId: string, step: string): string {
  return uuidv5(`${jobId}.${step}`, QUEUE_NAMESPACE);
}

/** A time-ordered ID (UUIDv7, RFC 9562 §5.7) for log rows read newest first. */
export function timeOrderedId(): string {
  return uuidv7();
}
