/**
 * The purge of ended sign-in ceremonies (docs/security.md): the second steps of password logins and the WebAuthn
 * challenges, which are issued to anyone (a passkey sign-in's), so that a flood does not grow their tables for ever
 * (ASVS 5.0 V2.4.1). One statement each; safe from several processes at once.
 */
import type { Executor } from '../../platform/db/open.js';
import { purgeChallenges } from '../factors/store.js';
import { purgeCeremonies } from './store.js';

/**
 * Deletes the second steps expired more than a day ago and the WebAuthn challenges expired more than an hour ago.
 * @returns how many rows went (count).
 */
export async function purgeEndedCeremonies(db: Executor): Promise<number> {
  return (await purgeChallenges(db)) + (await purgeCeremonies(db));
}
