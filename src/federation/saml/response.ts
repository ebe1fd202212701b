/**
 * Validating a SAML Response posted to the ACS (docs/federation.md "SAML 2.0"): node-saml's checks
 * (`sp.ts`), then Assent's (`checks.ts`), the NameID, the assertion's single use, and the
 * attributes mapped to the new user's name, e-mail and phone. Nothing is written unless every check
 * passed; the assertion ID is then recorded, so a replay is refused.
 */
import type { SAML } from '@node-saml/node-saml';
import type { Executor } from '../../platform/db/open.js';
import type { SignInResult } from '../openid/client.js';
import { assertionFacts, nodeSamlFailure, SamlCheckError } from './checks.js';
import { type SamlSettings, UNSPECIFIED } from './config.js';
import * as store from './store.js';

/** The IdP session of one sign-in, for the LogoutRequest (SAML 2.0 Core §3.7.1). */
export interface SamlSession {
  nameID: string;
  nameIDFormat: string;
  nameQualifier?: string;
  spNameQualifier?: string;
  sessionIndex?: string;
}

/** A validated sign-in. */
export interface SamlSignIn {
  /** For `linkUser`: the IdP's entity ID as issuer, the NameID as subject, the mapped attributes as claims. */
  result: SignInResult;
  session: SamlSession;
}

/** What the response is checked against. */
export interface ResponseContext {
  orgId: string;
  settings: SamlSettings;
  acsUrl: string;
  /** The ID of the AuthnRequest of the pending sign-in, or null for an IdP-initiated one. */
  requestId: string | null;
  /** The accepted clock skew (milliseconds; `ASSENT_SAML_CLOCK_SKEW_SECONDS`). */
  clockSkewMs: number;
}

const first = (value: unknown): string => {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' ? v : '';
};

/**
 * Checks a Response's text before it is parsed: no DTD, no comment.
 * @param encoded - the `SAMLResponse` form field (base64).
 * @returns the decoded XML.
 * @throws {SamlCheckError} naming the failed check.
 */
export function decodeResponse(encoded: string): string {
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  // Threat: XXE and entity expansion; SAML never needs a DTD (OWASP XML Security Cheat Sheet).
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlCheckError('a document type declaration is not accepted');
  // Threat: a comment splitting a signed NameID or attribute (CVE-2017-11427 class): c14n drops
  // comments, so the signature still verifies while a parser may read only the first text node.
  // node-saml reads the canonical text, but no IdP needs comments: refused outright.
  if (xml.includes('<!--')) throw new SamlCheckError('the response contains an XML comment');
  return xml;
}

/**
 * Validates a Response.
 * @param sp - makes the organisation's node-saml instance for what the Response carries
 *   (`response-inspect.ts`: the signatures present, the decryption key).
 * @param encoded - the `SAMLResponse` form field (base64).
 * @param xml - the same, decoded and checked by `decodeResponse`.
 * @throws {SamlCheckError} naming the failed check.
 */
export async function validateResponse(
  db: Executor,
  sp: SAML,
  encoded: string,
  xml: string,
  ctx: ResponseContext,
): Promise<SamlSignIn> {
  let profile: Awaited<ReturnType<SAML['validatePostResponseAsync']>>['profile'];
  try {
    ({ profile } = await sp.validatePostResponseAsync({ SAMLResponse: encoded }));
  } catch (err) {
    throw nodeSamlFailure(err);
  }
  if (!profile?.getAssertionXml) throw new SamlCheckError('the response carries no assertion');
  const assertionXml = profile.getAssertionXml();
  const inResponseTo = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null;
  if (inResponseTo !== ctx.requestId)
    throw new SamlCheckError('the response does not answer this sign-in’s request (InResponseTo)');
  if (profile.issuer !== ctx.settings.entityId)
    throw new SamlCheckError('the assertion was issued by another identity provider (Issuer)');
  const format = profile.nameIDFormat || UNSPECIFIED;
  if (!profile.nameID || format !== ctx.settings.nameIdFormat)
    throw new SamlCheckError(`the NameID is missing or not of the format ${ctx.settings.nameIdFormat}`);
  const facts = await assertionFacts(xml, assertionXml, ctx.acsUrl, ctx.clockSkewMs);
  // Threat: an assertion captured once (a log, a shared computer) presented again.
  if (!(await store.recordAssertion(db, ctx.orgId, facts.assertionId, facts.expiresAt)))
    throw new SamlCheckError('the assertion was used before (replay)');
  const map = ctx.settings.attributeMapping;
  return {
    result: {
      issuer: ctx.settings.entityId,
      subject: profile.nameID,
      claims: {
        email: first(profile[map.email]),
        name: first(profile[map.name]),
        phone_number: first(profile[map.phone]),
      },
      idToken: '',
    },
    session: {
      nameID: profile.nameID,
      nameIDFormat: format,
      ...(profile.nameQualifier ? { nameQualifier: profile.nameQualifier } : {}),
      ...(profile.spNameQualifier ? { spNameQualifier: profile.spNameQualifier } : {}),
      ...(profile.sessionIndex ? { sessionIndex: profile.sessionIndex } : {}),
    },
  };
}
