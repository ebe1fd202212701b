/**
 * The consent history's tamper evidence (docs/decisions/0005-consent-evidence.md "Evidence"; GDPR Art. 7(1)): every
 * event is hashed over its RFC 8785 canonical JSON, and the hashes are chained per organisation: `link(n) =
 * SHA-256(link(n-1) ‖ contentHash(n))`, from a link of 32 zero bytes.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { ConsentValue } from '../model/values.js';

/** The link before an organisation's first event (32 bytes). */
export const GENESIS_LINK = Buffer.alloc(32);

/** Who made a change. */
export interface Actor {
  /**
   * `individual` (own credential), `apiKey` (an organisation's admin or developer API key), `system` (expiry sweep).
   */
  type: 'individual' | 'apiKey' | 'system';
  /** The user whose credential acted (absent for `system`). */
  userId?: string;
  /** The API key used, when one was. */
  apiKeyId?: string;
}

/** Through what a change came. */
export interface Channel {
  /** `METHOD /path/template`, or the job's name. */
  endpoint: string;
  /** The request's User-Agent ("" when none). */
  userAgent: string;
}

/** Everything an event records; exactly what is hashed. */
export interface EventContent {
  id: string;
  orgId: string;
  /** Position in the organisation's chain, from 1. */
  seq: number;
  recordId: string;
  userId: string;
  purposeId: string;
  attributeId: string;
  oldValue: ConsentValue;
  newValue: ConsentValue;
  /** days */
  oldDays: number;
  /** days */
  newDays: number;
  /** RFC 3339 with milliseconds, UTC. */
  occurredAt: string;
  actor: Actor;
  channel: Channel;
  requestId: string;
}

/** An event as a change describes it, before the chain gives it an ID, organisation and seq. */
export type EventDraft = Omit<EventContent, 'id' | 'orgId' | 'seq'>;

/**
 * SHA-256 of the event's canonical JSON (RFC 8785).
 * @param content - the event.
 * @returns 32 bytes.
 */
export function contentHash(content: EventContent): Buffer {
  const canonical = canonicalize(stripUndefined(content));
  return createHash('sha256')
    .update(canonical ?? '', 'utf8')
    .digest();
}

/**
 * The chain link of an event.
 * @param prevLink - the predecessor's link (32 bytes).
 * @param hash - the event's content hash (32 bytes).
 * @returns 32 bytes.
 */
export function chainLink(prevLink: Buffer, hash: Buffer): Buffer {
  return createHash('sha256').update(prevLink).update(hash).digest();
}

function stripUndefined(content: EventContent): unknown {
  // JSON drops undefined members; do it first so that the stored jsonb and the hash agree.
  return JSON.parse(JSON.stringify(content));
}

/** An event with its evidence, ready to store. */
export interface SealedEvent extends EventContent {
  contentHash: Buffer;
  prevLink: Buffer;
  link: Buffer;
}

/**
 * Chains events after a head: numbers them and computes their hashes and links.
 * @param head - the organisation's chain head (`seq` of the last event, its link).
 * @param contents - the events in order, without `seq`.
 */
export function seal(head: { seq: number; link: Buffer }, contents: Array<Omit<EventContent, 'seq'>>): SealedEvent[] {
  let { seq, link } = head;
  return contents.map((c) => {
    seq += 1;
    const content = { ...c, seq };
    const hash = contentHash(content);
    const prevLink = link;
    link = chainLink(prevLink, hash);
    return { ...content, contentHash: hash, prevLink, link };
  });
}

/** What a verification found. */
export interface VerifyReport {
  /** True when every event's hash and link recompute and the head names the last one. */
  Valid: boolean;
  /** Events checked (count). */
  Events: number;
  /** The first broken event's `seq`, or null. */
  FirstBrokenSeq: number | null;
  /** Why it is broken ("" when valid). */
  Reason: string;
}

/**
 * Checks one stored event against its predecessor's link; returns the reason it fails, or null.
 * @param event - as stored.
 * @param expectedSeq - the seq it must have.
 * @param prevLink - the recomputed link of its predecessor.
 */
export function checkEvent(event: SealedEvent, expectedSeq: number, prevLink: Buffer): string | null {
  if (event.seq !== expectedSeq) return `event ${expectedSeq} is missing (found ${event.seq})`;
  const { contentHash: storedHash, prevLink: storedPrev, link, ...content } = event;
  if (!contentHash(content).equals(storedHash)) return 'the event content does not match its hash';
  if (!storedPrev.equals(prevLink)) return 'the event does not name its predecessor';
  if (!chainLink(prevLink, storedHash).equals(link)) return 'the event link does not recompute';
  return null;
}
