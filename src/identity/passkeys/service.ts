/**
 * Passkeys (WebAuthn Level 3, through `@simplewebauthn/server`; docs/security.md "Passkeys"): a person registers
 * several, names and removes them, and signs in with one alone (a discoverable credential: the passkey names its
 * person) or uses one as the second step of a password login. The relying party is Assent's public URL: its host is the
 * RP ID and its origin the only origin accepted, so a passkey phished through another site's page is refused
 * (WebAuthn §13.4.9). Each ceremony's challenge is 32 random bytes, stored, answered once within
 * `CEREMONY_SECONDS`. Changes of a staff member's passkeys are audited (`FactorEvents`).
 */
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { ThrottlePolicy } from '../../platform/config/load.js';
import { InvalidRequest, NotFound, Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import { assertFreshSignIn } from '../factors/fresh.js';
import type { FactorEvents } from '../factors/service.js';
import type { LivenessCache } from '../sessions/liveness.js';
import { revokeUserSessions } from '../sessions/revocation.js';
import { assertKeyNotBlocked, recordKeyFailure } from '../sessions/throttle.js';
import { credentialAccountById } from '../users/profile.js';
import * as store from './store.js';

/** How long a ceremony's challenge may be answered (seconds). */
const CEREMONY_SECONDS = 300;
/** The refusal of any passkey that does not verify: it says nothing of which check failed. */
const NOT_VERIFIED = 'The passkey could not be verified: try again, or sign in another way';

/** A passkey as the API shows it; times are RFC 3339. */
export interface PasskeyBody {
  ID: string;
  Name: string;
  CreatedAt: string;
  LastUsedAt: string | null;
  /** A synced passkey (`multiDevice`) or one bound to its authenticator (`singleDevice`). */
  DeviceType: string;
  BackedUp: boolean;
}

const present = (p: store.PasskeyRow): PasskeyBody => ({
  ID: p.id,
  Name: p.name,
  CreatedAt: p.createdAt.toISOString(),
  LastUsedAt: p.lastUsedAt?.toISOString() ?? null,
  DeviceType: p.deviceType,
  BackedUp: p.backedUp,
});

/** Registers, lists, renames, removes and verifies passkeys. */
export class Passkeys {
  private readonly rpId: string;
  private readonly origin: string;

  /**
   * @param publicUrl - `ASSENT_PUBLIC_URL`: its host is the RP ID, its origin the expected origin.
   * @param liveness - told when other sessions end.
   * @param events - the audit entries of changes.
   * @param throttle - the per-IP policy of failed passkey sign-ins (`Config.throttleIp`, as logins).
   */
  constructor(
    private readonly db: Db,
    publicUrl: string,
    private readonly liveness: LivenessCache,
    private readonly events: FactorEvents,
    private readonly throttle: ThrottlePolicy,
  ) {
    this.rpId = new URL(publicUrl).hostname;
    this.origin = new URL(publicUrl).origin;
  }

  /** The person's passkeys, oldest first. */
  async list(userId: string): Promise<PasskeyBody[]> {
    return (await store.passkeysOf(this.db, userId)).map(present);
  }

  /**
   * The options of a registration (WebAuthn §5.4): a discoverable credential, user verification preferred, none of
   * the person's passkeys again.
   * @throws {Unauthenticated} for a deleted account.
   */
  async registrationOptions(userId: string) {
    const account = await credentialAccountById(this.db, userId);
    if (!account) throw new Unauthenticated();
    const existing = await store.passkeysOf(this.db, userId);
    const options = await generateRegistrationOptions({
      rpName: 'Assent',
      rpID: this.rpId,
      userName: account.username,
      userID: new TextEncoder().encode(userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({
        id: p.credentialId,
        transports: p.transports as AuthenticatorTransportFuture[],
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      timeout: CEREMONY_SECONDS * 1000,
    });
    await store.insertChallenge(this.db, {
      challenge: options.challenge,
      purpose: 'register',
      userId,
      ttlSeconds: CEREMONY_SECONDS,
    });
    return options;
  }

  /**
   * Verifies a registration and stores the passkey.
   * @param name - the person's name for it (1–100 characters).
   * @throws {InvalidRequest} when it does not verify against a live challenge of this person.
   */
  async register(userId: string, response: RegistrationResponseJSON, name: string): Promise<PasskeyBody> {
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response,
        // Threat: a replayed or forged ceremony; the challenge must be one issued to this person, unused.
        expectedChallenge: (challenge) => store.spendChallenge(this.db, challenge, 'register', userId),
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
      });
    } catch {
      throw new InvalidRequest(NOT_VERIFIED);
    }
    if (!verified.verified || !verified.registrationInfo) throw new InvalidRequest(NOT_VERIFIED);
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    if (await store.passkeyByCredential(this.db, credential.id))
      throw new InvalidRequest('This passkey is already registered');
    const row = await this.db.transaction(async (tx) => {
      const stored = await store.insertPasskey(tx, {
        userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
        name: name.trim() || 'Passkey',
      });
      await this.events.changed(tx, userId, 'mfa.passkey.add');
      return stored;
    });
    return present(row);
  }

  /**
   * Renames one of the person's passkeys.
   * @throws {NotFound} when it is not theirs.
   */
  async rename(userId: string, passkeyId: string, name: string): Promise<PasskeyBody> {
    const id = isId(passkeyId) ? passkeyId.toLowerCase() : null;
    if (!id || !(await store.renamePasskey(this.db, userId, id, name.trim() || 'Passkey')))
      throw new NotFound('Passkey not found');
    return present((await store.passkeysOf(this.db, userId)).find((p) => p.id === id)!);
  }

  /**
   * Removes one of the person's passkeys; every other session of theirs ends.
   * @param principal - the person, signed in within the last 5 minutes (`assertFreshSignIn`).
   * @throws {Unauthenticated} for an older sign-in; {NotFound} when it is not theirs.
   */
  async remove(principal: Principal, passkeyId: string): Promise<void> {
    await assertFreshSignIn(this.db, principal);
    const id = isId(passkeyId) ? passkeyId.toLowerCase() : null;
    const userId = principal.userId;
    const removed =
      id !== null &&
      (await this.db.transaction(async (tx) => {
        if (!(await store.deletePasskey(tx, userId, id))) return false;
        // Threat: a session opened with the passkey outliving its removal.
        await revokeUserSessions(tx, userId, principal.familyId ?? null, 'passkey removed');
        await this.events.changed(tx, userId, 'mfa.passkey.remove');
        return true;
      }));
    if (!removed) throw new NotFound('Passkey not found');
    this.liveness.forgetUser(userId);
  }

  /**
   * The options of a sign-in (WebAuthn §5.5): for anyone (no credential listed: the authenticator offers its
   * discoverable passkeys), or, as a second factor, for the person's passkeys only.
   * @param userId - the person of a second step; absent for a passkey sign-in.
   */
  async authenticationOptions(userId?: string) {
    const mine = userId ? await store.passkeysOf(this.db, userId) : [];
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      userVerification: 'preferred',
      allowCredentials: mine.map((p) => ({
        id: p.credentialId,
        transports: p.transports as AuthenticatorTransportFuture[],
      })),
      timeout: CEREMONY_SECONDS * 1000,
    });
    await store.insertChallenge(this.db, {
      challenge: options.challenge,
      purpose: 'authenticate',
      userId: userId ?? null,
      ttlSeconds: CEREMONY_SECONDS,
    });
    return options;
  }

  /**
   * A sign-in with a passkey alone: `verify`, throttled per client address as password logins are.
   * @param ip - the client's address.
   * @returns the passkey's person.
   * @throws {Unauthenticated} when it does not verify; {RateLimited} while the address is blocked.
   */
  async signIn(response: AuthenticationResponseJSON, ip: string): Promise<string> {
    const key = `passkey:ip:${ip}`;
    await assertKeyNotBlocked(this.db, key);
    try {
      return await this.verify(response);
    } catch (err) {
      // Threat: trying stolen or forged answers; each refusal slows the address's next attempt.
      if (err instanceof Unauthenticated) await recordKeyFailure(this.db, key, this.throttle);
      throw err;
    }
  }

  /**
   * Verifies a sign-in's answer: a registered passkey's signature over a live challenge, from this origin.
   * @param userId - the person of a second step (the passkey must be theirs); absent for a passkey sign-in.
   * @returns the passkey's person.
   * @throws {Unauthenticated} when it does not verify.
   */
  async verify(response: AuthenticationResponseJSON, userId?: string): Promise<string> {
    const passkey = typeof response?.id === 'string' ? await store.passkeyByCredential(this.db, response.id) : null;
    if (!passkey || (userId && passkey.userId !== userId)) throw new Unauthenticated(NOT_VERIFIED);
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: (challenge) => store.spendChallenge(this.db, challenge, 'authenticate', userId ?? null),
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransportFuture[],
        },
        requireUserVerification: false,
      });
    } catch {
      throw new Unauthenticated(NOT_VERIFIED);
    }
    if (!verified.verified) throw new Unauthenticated(NOT_VERIFIED);
    await store.markUsed(this.db, passkey.id, verified.authenticationInfo.newCounter);
    return passkey.userId;
  }
}
