/**
 * IdP-initiated single logout (SAML 2.0 Profiles §4.4.3, §4.4.4; Core §3.7): the IdP's signed
 * LogoutRequest (checked by `logout-binding.ts` and `logout-checks.ts`) names a NameID and, maybe,
 * SessionIndexes; Assent ends every session of the linked user that was signed in with that NameID
 * (and, when the session recorded a SessionIndex and the request names some, one of them), and
 * answers a signed LogoutResponse to the IdP's SingleLogoutService: Success when it ended at least
 * one session, Requester/UnknownPrincipal when none matched, Requester/RequestUnsupported for an
 * EncryptedID or BaseID, Responder when ending them failed.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { IdentityService } from '../../identity/index.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import * as fedStore from '../openid/store.js';
import { SAML_SESSION_PURPOSE } from './broker.js';
import type { SamlSettings, SpEndpoints } from './config.js';
import { ASSERTION, LogoutRefusal, logoutResponseUrl, PROTOCOL } from './logout-binding.js';
import { checkEnvelope, child, type Expected, instantOf, textOf } from './logout-checks.js';
import type { SamlSession } from './response.js';
import { CLOCK_SKEW_MS, REQUEST_TTL_MS } from './sp.js';
import type { SpKey } from './sp-keys.js';
import * as store from './store.js';

const STATUS = 'urn:oasis:names:tc:SAML:2.0:status:';
const SUCCESS = [`${STATUS}Success`];
const UNKNOWN_PRINCIPAL = [`${STATUS}Requester`, `${STATUS}UnknownPrincipal`];
const UNSUPPORTED = [`${STATUS}Requester`, `${STATUS}RequestUnsupported`];
const FAILED = [`${STATUS}Responder`];

/** What a LogoutRequest asks (Core §3.7.1). */
export interface LogoutRequestFacts {
  id: string;
  /** The NameID, or null when the subject is an EncryptedID or BaseID (not supported). */
  nameID: string | null;
  /** The NameID's Format, or "" when absent. */
  nameIDFormat: string;
  /** The SessionIndexes named; empty means every session of the NameID. */
  sessionIndexes: string[];
  /** Until when the request's ID is kept to refuse a replay. */
  expiresAt: Date;
}

/**
 * Reads and checks a verified LogoutRequest: envelope (`checkEnvelope`), IssueInstant within
 * `REQUEST_TTL_MS` in the past and `skewMs` in the future, NotOnOrAfter (when present) not
 * passed, with `skewMs` (Core §3.7.1).
 * @param now - milliseconds since the epoch.
 * @param skewMs - the largest clock difference accepted (milliseconds; `ASSENT_SAML_CLOCK_SKEW_SECONDS`,
 *   docs/configuration.md).
 * @throws {LogoutRefusal} naming the failed check.
 */
export function readLogoutRequest(
  root: Element,
  expected: Expected,
  now: number,
  skewMs = CLOCK_SKEW_MS,
): LogoutRequestFacts {
  const id = checkEnvelope(root, expected);
  const issued = instantOf(root, 'IssueInstant');
  if (issued === null) throw new LogoutRefusal('the LogoutRequest has no IssueInstant');
  if (issued > now + skewMs) throw new LogoutRefusal('the LogoutRequest is not yet valid (IssueInstant)');
  if (issued < now - REQUEST_TTL_MS - skewMs) throw new LogoutRefusal('the LogoutRequest is too old (IssueInstant)');
  const notOnOrAfter = instantOf(root, 'NotOnOrAfter');
  if (notOnOrAfter !== null && now >= notOnOrAfter + skewMs)
    throw new LogoutRefusal('the LogoutRequest has expired (NotOnOrAfter)');
  const nameId = child(root, ASSERTION, 'NameID');
  const sessionIndexes = Array.from(root.childNodes)
    .filter((n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === PROTOCOL)
    .filter((e) => e.localName === 'SessionIndex')
    .map((e) => textOf(e));
  const keepUntil = Math.max(notOnOrAfter ?? 0, issued + REQUEST_TTL_MS) + skewMs;
  return {
    id,
    nameID: nameId && textOf(nameId) ? textOf(nameId) : null,
    nameIDFormat: nameId?.getAttribute('Format') ?? '',
    sessionIndexes,
    expiresAt: new Date(keepUntil),
  };
}

/** Whether the session kept at sign-in is one the request names. */
function matches(session: SamlSession, facts: LogoutRequestFacts): boolean {
  if (session.nameID !== facts.nameID) return false;
  if (facts.nameIDFormat && session.nameIDFormat && facts.nameIDFormat !== session.nameIDFormat) return false;
  // Core §3.7.3.2: with SessionIndexes, only those sessions; a session that recorded none matches by NameID.
  if (facts.sessionIndexes.length > 0 && session.sessionIndex)
    return facts.sessionIndexes.includes(session.sessionIndex);
  return true;
}

/** What an IdP-initiated logout gives the browser. */
export type IdpLogoutOutcome = { location: string } | { loggedOut: boolean };

/** Answers IdP-initiated LogoutRequests (see the module comment). */
export class IdpLogout {
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly identity: IdentityService,
    private readonly clockSkewMs = CLOCK_SKEW_MS,
  ) {}

  /** Ends the sessions the request names; returns how many. */
  private async endSessions(orgId: string, issuer: string, facts: LogoutRequestFacts): Promise<number> {
    const userId = await fedStore.linkedUser(this.db, orgId, issuer, facts.nameID!);
    if (!userId) return 0;
    let ended = 0;
    for (const row of await fedStore.userSessions(this.db, orgId, userId)) {
      let session: SamlSession;
      try {
        session = JSON.parse(this.master.open(row.idTokenSealed, SAML_SESSION_PURPOSE)) as SamlSession;
      } catch {
        continue; // an OpenID provider's session of the same organisation
      }
      if (!matches(session, facts)) continue;
      await this.identity.revokeSession(userId, row.familyId, 'saml idp logout');
      await fedStore.takeSession(this.db, row.familyId);
      ended++;
    }
    return ended;
  }

  /**
   * Answers a LogoutRequest whose signature verified.
   * @param sp - Assent's endpoints of the organisation: its entity ID (the response's Issuer) and SLO URL.
   * @param key - Assent's current SP key, which signs the LogoutResponse.
   * @returns the IdP's SLO URL with the signed LogoutResponse, or, when the IdP has no
   *   SingleLogoutService, whether a session ended.
   * @throws {LogoutRefusal} when a check fails or the request was received before (replay); nothing is ended.
   */
  async answer(
    orgId: string,
    settings: SamlSettings,
    sp: SpEndpoints,
    key: SpKey,
    message: { root: Element; relayState: string | undefined },
    log: FastifyBaseLogger,
  ): Promise<IdpLogoutOutcome> {
    const expected = { issuer: settings.entityId, destination: sp.spSloUrl };
    const facts = readLogoutRequest(message.root, expected, Date.now(), this.clockSkewMs);
    // Threat: a captured LogoutRequest replayed to end the user's later sessions.
    if (!(await store.recordAssertion(this.db, orgId, facts.id, facts.expiresAt)))
      throw new LogoutRefusal('the LogoutRequest was received before (replay)');
    let status = UNSUPPORTED;
    let ended = 0;
    if (facts.nameID !== null) {
      try {
        ended = await this.endSessions(orgId, settings.entityId, facts);
        status = ended > 0 ? SUCCESS : UNKNOWN_PRINCIPAL;
      } catch (err) {
        log.error({ err, orgId }, 'SAML IdP-initiated logout failed to end the sessions');
        status = FAILED;
      }
    }
    log.info({ orgId, ended, status: status.at(-1) }, 'SAML IdP-initiated logout');
    if (!settings.sloUrl) return { loggedOut: ended > 0 };
    const location = logoutResponseUrl(
      {
        destination: settings.sloUrl,
        issuer: sp.spEntityId,
        inResponseTo: facts.id,
        status,
        relayState: message.relayState,
      },
      key.privateKey,
    );
    return { location };
  }
}
