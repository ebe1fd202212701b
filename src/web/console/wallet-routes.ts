/**
 * Routes of the wallet settings section of the console's Integrations page (docs/web.md "Console";
 * docs/wallet.md "Wallet settings"), each following its API operation's policy row (`api`) and
 * calling `WalletSettingsService` as `{base}/organizations/{orgID}/wallet` does:
 * - `POST …/integrations/wallet` (`wallet.settings.put`): create or replace, every field from the
 *   form; the private key only when typed (else the stored one is kept), or a generated one;
 * - `POST …/integrations/wallet/delete` (`wallet.settings.delete`), only with the confirmation box ticked.
 * A change the service refuses (4xx) answers the page with that status and the message beside the form.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InvalidRequest } from '../../platform/core/errors.js';
import type { WalletSettingsInput } from '../../provider/index.js';
import { principalOf } from '../dashboard/views.js';
import { fieldNamedIn } from '../shared/form-state.js';
import { back, type IntegrationsDeps, integrationsRefused, orFormError, shownAgain } from './integrations-data.js';
import { session, signedIn } from './routes.js';
import { Confirmed, Org, WalletForm } from './schemas.js';

/** The form's fields by the API's names for them, as the settings' messages name them. */
const WALLET_NAMES: Record<string, string> = {
  trustedissuers: 'trustedIssuerCertificates',
  dcqlquery: 'dcqlQuery',
  claimmapping: 'claimMapping',
  stableclaim: 'stableClaim',
  deeplinkscheme: 'deepLinkScheme',
  verifierchain: 'verifierCertificateChain',
  verifierkey: 'verifierPrivateKey',
};
/** The field a wallet settings refusal names first, if any. */
const walletField = (message: string) => fieldNamedIn(message, Object.keys(WALLET_NAMES), WALLET_NAMES);
const invalid = (problem: string) => new InvalidRequest(`Invalid wallet settings: ${problem}`);
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g;
const POISON_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The PEM blocks of a textarea, one certificate each (the API takes an array).
 * @throws {InvalidRequest} when text other than PEM blocks is found; nothing is changed.
 */
function pemBlocks(text: string): string[] {
  if (text.replace(PEM_BLOCK, '').trim() !== '')
    throw invalid('trustedIssuerCertificates: holds text outside its PEM blocks');
  return (text.match(PEM_BLOCK) ?? []).map((b) => `${b}\n`);
}

/**
 * A JSON textarea's value, or undefined when empty (the API's default applies).
 * @throws {InvalidRequest} when it is not JSON, or holds a key the API's JSON parser refuses.
 */
function jsonField(text: string | undefined, field: string): unknown {
  if (!text?.trim()) return undefined;
  try {
    return JSON.parse(text, (key, value) => {
      // Threat: prototype poisoning of objects built from the value, refused as in the API's JSON bodies.
      if (POISON_KEYS.has(key)) throw new Error('poison key');
      return value;
    });
  } catch {
    throw invalid(`${field}: is not JSON (or holds a __proto__, constructor or prototype key)`);
  }
}

/** The API body of a form. @throws {InvalidRequest} for a textarea that does not parse. */
function inputOf(f: WalletForm): WalletSettingsInput {
  const input: WalletSettingsInput = {
    profile: f.profile ?? 'haip',
    trustedIssuerCertificates: pemBlocks(f.trustedissuers ?? ''),
    dcqlQuery: jsonField(f.dcqlquery, 'dcqlQuery'),
    claimMapping: jsonField(f.claimmapping, 'claimMapping') as Record<string, unknown> | undefined,
    stableClaim: f.stableclaim || undefined,
    deepLinkScheme: f.deeplinkscheme || undefined,
    sameDeviceOnly: f.samedeviceonly === 'on',
    responseEncryption: [...(f.a128gcm ? ['A128GCM'] : []), ...(f.a256gcm ? ['A256GCM'] : [])],
  };
  // A generated key replaces the chain, which the form still shows: it is then not sent.
  if (f.generatekey === 'on') input.generateVerifierKey = true;
  else if (f.verifierchain?.trim()) input.verifierCertificateChain = f.verifierchain;
  // Write-only: an empty field keeps the stored key (the API's PUT without verifierPrivateKey).
  if (f.verifierkey?.trim()) input.verifierPrivateKey = f.verifierkey;
  return input;
}

/** @param opts - the services. */
export const consoleWalletRoutes: FastifyPluginAsyncTypebox<IntegrationsDeps> = async (app, deps) => {
  app.post('/console/:organizationID/integrations/wallet', {
    config: {
      operation: 'web.console.wallet.update',
      ...signedIn,
      api: 'wallet.settings.put',
      refused: integrationsRefused(deps, 'wallet', ['verifierkey'], walletField),
    },
    schema: { params: Org, body: WalletForm },
    handler: async (req, reply) =>
      orFormError(
        deps,
        req,
        reply,
        'wallet',
        shownAgain(req.body, 'verifierkey'),
        async () => {
          const orgId = req.params.organizationID;
          await deps.walletSettings.put(principalOf(session(req)), orgId, inputOf(req.body));
          return back(reply, orgId, 'wallet');
        },
        walletField,
      ),
  });

  app.post('/console/:organizationID/integrations/wallet/delete', {
    config: { operation: 'web.console.wallet.delete', ...signedIn, api: 'wallet.settings.delete' },
    // The confirmation step: the box must be ticked, else a 400 page and nothing changes.
    schema: { params: Org, body: Confirmed },
    handler: async (req, reply) => {
      await deps.walletSettings.remove(principalOf(session(req)), req.params.organizationID);
      return back(reply, req.params.organizationID, 'wallet-deleted');
    },
  });
};
