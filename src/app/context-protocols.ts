/**
 * The composition root's wiring of the protocol contexts (docs/development.md "Bounded contexts"): Assent as relying
 * party (federation: OpenID Connect and SAML 2.0) and Assent as OpenID provider with its wallet verifier (provider).
 * `createContext` calls both; they build services only, and start nothing.
 */
import {
  Broker,
  Exchange,
  FederatedLogout,
  FederationConfigService,
  type FederationServices,
  SamlBroker,
  SamlConfigService,
  SamlLogout,
  SamlMetadataService,
  type SamlServices,
  SpKeys,
} from '../federation/index.js';
import type { IdentityService, KeyRing, Tokens } from '../identity/index.js';
import type { Config } from '../platform/config/load.js';
import type { MasterKey } from '../platform/crypto/master-key.js';
import type { Db } from '../platform/db/open.js';
import { OrgProviders, RelyingPartyRegistry, WalletFlow, WalletSettingsService } from '../provider/index.js';

/** The federation services: the OpenID Connect broker and its parts, and the SAML 2.0 side that reuses it. */
export interface Federation {
  /** The organisations' external OpenID providers. */
  configs: FederationConfigService;
  /** The broker flow shared by OpenID Connect and SAML sign-ins. */
  broker: Broker;
  /** The API's federation services (docs/federation.md). */
  federation: FederationServices;
  /** The SAML 2.0 services (docs/federation.md "SAML 2.0"). */
  saml: SamlServices;
}

/**
 * Builds the federation context's services.
 * @param identity - ends federated sessions and issues Assent's tokens after a sign-in.
 */
export function createFederation(
  db: Db,
  config: Config,
  master: MasterKey,
  identity: IdentityService,
  tokens: Tokens,
): Federation {
  const configs = new FederationConfigService(db, master, config);
  const broker = new Broker(db, master, configs);
  const federation: FederationServices = {
    configs,
    broker,
    exchange: new Exchange(db, config, master, identity, tokens, configs, broker),
    logout: new FederatedLogout(db, master, configs, identity),
  };
  const samlConfigs = new SamlConfigService(db, config);
  const spKeys = new SpKeys(db, master, new URL(config.publicUrl).hostname);
  // Clock skew in milliseconds, as node-saml takes it (`ASSENT_SAML_CLOCK_SKEW_SECONDS` is in seconds).
  const skewMs = config.samlClockSkewSeconds * 1000;
  const saml: SamlServices = {
    configs: samlConfigs,
    metadata: new SamlMetadataService(db, samlConfigs, spKeys),
    broker: new SamlBroker(db, master, samlConfigs, spKeys, skewMs),
    logout: new SamlLogout(db, master, samlConfigs, spKeys, identity, skewMs),
  };
  return { configs, broker, federation, saml };
}

/** The provider context's services: the wallet verifier and the organisations' OpenID providers. */
export interface ProviderParts {
  /** The organisations' wallet settings (docs/wallet.md). */
  walletSettings: WalletSettingsService;
  /** The OpenID4VP verifier of wallet sign-in. */
  wallet: WalletFlow;
  /** The relying parties registered at the organisations' providers. */
  relyingParties: RelyingPartyRegistry;
  /** One oidc-provider per organisation, built on first use. */
  providers: OrgProviders;
}

/**
 * Builds the provider context's services.
 * @param keys - the signing-key ring the providers sign ID tokens with.
 */
export function createProvider(db: Db, config: Config, master: MasterKey, keys: KeyRing): ProviderParts {
  const walletSettings = new WalletSettingsService(db, master, new URL(config.publicUrl).hostname);
  const wallet = new WalletFlow(db, master, walletSettings, config);
  const relyingParties = new RelyingPartyRegistry(db);
  const providers = new OrgProviders(db, config.publicUrl, keys, master, relyingParties, wallet);
  return { walletSettings, wallet, relyingParties, providers };
}
