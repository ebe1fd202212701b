/**
 * TypeBox schemas of the console's pages (docs/web.md "Console"): the CSRF field every form carries, the paths of an
 * organisation's pages, and the forms and queries of the organisation, individuals, consent overview, consent
 * requests, Integrations, event webhooks and Staff pages. The API's own bodies stay with their context; a form reuses their fields and
 * limits.
 */
import { type Static, Type } from 'typebox';
import { ConsentRequestInput, DataAttributeInput, PurposeInput } from '../../consent/index.js';
import { IdpInput } from '../../federation/index.js';
import { ApnsInput, ServiceAccountText, WebhookInput, WebhookUrl } from '../../notifications/index.js';
import { AddBody, ListQuery } from '../../organisations/index.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { MAX_EMAIL } from '../../platform/mail/address.js';
import { CreateBody, MAX_ANCHORS } from '../../provider/index.js';

/** The CSRF field of a console form (checked by the web guard), to spread into a form's fields. */
export const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 100 })) };

/** The path parameters of an organisation's console page. */
export const Org = Type.Object({ organizationID: Type.String() });

/** The path parameters of a purpose's forms: the organisation and `{purposeID}`. */
export const OrgPurpose = Type.Object({ organizationID: Type.String(), purposeID: Type.String() });

/** The path parameters of a data attribute's forms: the organisation and `{templateID}`. */
export const OrgTemplate = Type.Object({ organizationID: Type.String(), templateID: Type.String() });

/** The query of the organisation page: `done`, which saved-notice to show (≤ 40 characters; an unknown one shows none). */
export const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) });
/** An organisation page query. */
export type DoneQuery = Static<typeof DoneQuery>;

/**
 * The retention form: `enabled` a checkbox (sent as `on`), `days` 1 to 5 digits (the route checks 1 to 36,500,
 * the API's bounds).
 */
export const RetentionForm = Type.Object({
  ...Csrf,
  enabled: Type.Optional(Type.Literal('on')),
  days: Type.String({ pattern: '^[0-9]{1,5}$' }),
});
/** A retention form. */
export type RetentionForm = Static<typeof RetentionForm>;

/** The API's purpose fields as a form: `lawfulusage` is a checkbox (sent as `on`). */
export const PurposeForm = Type.Object({
  ...Csrf,
  name: PurposeInput.properties.name,
  description: PurposeInput.properties.description,
  policyurl: PurposeInput.properties.policyurl,
  lawfulusage: Type.Optional(Type.Literal('on')),
});
/** A purpose form. */
export type PurposeForm = Static<typeof PurposeForm>;

/** The API's data attribute fields as a form. */
export const AttributeForm = Type.Object({ ...Csrf, ...DataAttributeInput.properties });
/** A data attribute form. */
export type AttributeForm = Static<typeof AttributeForm>;

/** A deletion's form: its confirmation box must be ticked (sent as `on`), else a 400 page and nothing changes. */
export const Confirmed = Type.Object({ ...Csrf, confirm: Type.Literal('on') });
/** A deletion form. */
export type Confirmed = Static<typeof Confirmed>;

/** The path parameters of a consent request job's pages: the organisation and `{jobID}` (≤ 64 characters). */
export const OrgJob = Type.Object({ organizationID: Type.String(), jobID: Type.String({ maxLength: 64 }) });
/** A job page's path. */
export type OrgJob = Static<typeof OrgJob>;

/** The API's consent request body as a form: the purpose (the API's path parameter) and the ticked attributes. */
export const RequestForm = Type.Object({
  ...Csrf,
  purposeid: Type.String({ minLength: 1, maxLength: 64 }),
  ...ConsentRequestInput.properties,
});
/** A consent request form. */
export type RequestForm = Static<typeof RequestForm>;

/** The query of the consented users page: the purpose, optionally one of its attributes, and the page's `startid`. */
export const ConsentedUsersQuery = Type.Object({
  purposeid: Type.String({ maxLength: 100 }),
  attributeid: Type.Optional(Type.String({ maxLength: 100 })),
  startid: Type.Optional(Type.String({ maxLength: 100 })),
});
/** A consented users page query. */
export type ConsentedUsersQuery = Static<typeof ConsentedUsersQuery>;

/** The path parameters of an individual's pages: the organisation and `{userID}`. */
export const OrgUser = Type.Object({ organizationID: Type.String(), userID: Type.String() });
/** An individual page's path. */
export type OrgUser = Static<typeof OrgUser>;

/** The query of the individuals list: the API's list query (`limit`, `startid`, `search`) and `done`. */
export const IndividualsQuery = Type.Object({ ...ListQuery.properties, ...DoneQuery.properties });
/** An individuals list query. */
export type IndividualsQuery = Static<typeof IndividualsQuery>;

/** The query of an individual's page: its consent history's page (`limit`, `startid`) and `done`. */
export const IndividualQuery = Type.Object({ ...PageQuery, ...DoneQuery.properties });
/** An individual page query. */
export type IndividualQuery = Static<typeof IndividualQuery>;

/** The API's fields for a new individual (`individuals.add` with `username`), as a form. */
export const AddForm = Type.Object({
  ...Csrf,
  username: AddBody.properties.username,
  name: AddBody.properties.name,
  email: AddBody.properties.email,
  phone: AddBody.properties.phone,
  password: AddBody.properties.password,
});
/** An add-individual form. */
export type AddForm = Static<typeof AddForm>;

/** The query of the Integrations page: the webhook delivery log's `startid` (≤ 100 characters) and `done`. */
export const IntegrationsQuery = Type.Object({
  startid: Type.Optional(Type.String({ maxLength: 100 })),
  ...DoneQuery.properties,
});
/** An Integrations page query. */
export type IntegrationsQuery = Static<typeof IntegrationsQuery>;

/** The path parameters of a relying party's forms: the organisation and `{clientID}`. */
export const OrgClient = Type.Object({ organizationID: Type.String(), clientID: Type.String() });
/** A relying party form's path. */
export type OrgClient = Static<typeof OrgClient>;

/**
 * The notification transports form: `email` a checkbox, `webhookurl` the API's webhook URL or empty (none),
 * `rotatesecret` a checkbox (a new signing secret).
 */
export const TransportsForm = Type.Object({
  ...Csrf,
  email: Type.Optional(Type.Literal('on')),
  webhookurl: Type.Optional(Type.Union([Type.Literal(''), WebhookUrl])),
  rotatesecret: Type.Optional(Type.Literal('on')),
});
/** A notification transports form. */
export type TransportsForm = Static<typeof TransportsForm>;

/** Room for the API's largest URI list (50 URIs of 2000 characters) as lines of a textarea. */
const UriLines = Type.String({ maxLength: 110_000 });

/** The app redirect URIs form: the URIs one per line (the route checks them against the API's list schema). */
export const RedirectUrisForm = Type.Object({ ...Csrf, uris: UriLines });
/** An app redirect URIs form. */
export type RedirectUrisForm = Static<typeof RedirectUrisForm>;

/** The relying-party form: the API's registration fields; the URIs one per line, `public` a checkbox. */
export const ClientForm = Type.Object({
  ...Csrf,
  clientid: Type.Optional(Type.Union([Type.Literal(''), CreateBody.properties.clientId])),
  name: CreateBody.properties.name,
  redirecturis: UriLines,
  public: Type.Optional(Type.Literal('on')),
});
/** A relying-party form. */
export type ClientForm = Static<typeof ClientForm>;

/** The FCM form: the service-account key as text, with the API's limit. */
export const FcmForm = Type.Object({ ...Csrf, serviceaccount: ServiceAccountText });
/** An FCM form. */
export type FcmForm = Static<typeof FcmForm>;

const { key, keyid, teamid, bundleid, environment } = ApnsInput.properties;
/** The APNs form: the API's `apns` fields and limits; an empty `key` keeps the stored one. */
export const ApnsForm = Type.Object({ ...Csrf, key, keyid, teamid, bundleid, environment });
/** An APNs form. */
export type ApnsForm = Static<typeof ApnsForm>;

/** A ticked checkbox (sent as `on`), or nothing. */
const On = Type.Optional(Type.Literal('on'));

/** A text field of the IdP form with the API's length limit of `name`, empty allowed (the service names what is missing). */
const idpField = (name: Exclude<keyof typeof IdpInput.properties, 'validateSignature' | 'disableUserInfo'>) =>
  Type.Optional(Type.String({ maxLength: (IdpInput.properties[name] as { maxLength?: number }).maxLength }));

/**
 * The IdP form: the API's fields (and its length limits, `IdpInput`) in lower case, the booleans
 * as checkboxes, and `discover`. Emptiness and URL rules are the service's, so that its message
 * shows beside the form.
 */
export const IdpForm = Type.Object({
  ...Csrf,
  issuer: idpField('issuer'),
  discover: On,
  authorizationurl: idpField('authorizationUrl'),
  tokenurl: idpField('tokenUrl'),
  jwksurl: idpField('jwksUrl'),
  userinfourl: idpField('userInfoUrl'),
  logouturl: idpField('logoutUrl'),
  clientid: idpField('clientId'),
  clientsecret: idpField('clientSecret'),
  defaultscope: idpField('defaultScope'),
  validatesignature: On,
  disableuserinfo: On,
});
/** An IdP form. */
export type IdpForm = Static<typeof IdpForm>;

/** The API's limit of one PEM field (characters, `Pem` in src/provider/wallet/schemas.ts). */
const PEM_CHARS = 20_000;
const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** The wallet form: the API's `PUT` fields in lower case, the anchors in one textarea, JSON as text. */
export const WalletForm = Type.Object({
  ...Csrf,
  profile: Text(20),
  trustedissuers: Text(PEM_CHARS * MAX_ANCHORS),
  dcqlquery: Text(100_000),
  claimmapping: Text(20_000),
  stableclaim: Text(64),
  deeplinkscheme: Text(40),
  samedeviceonly: On,
  a128gcm: On,
  a256gcm: On,
  generatekey: On,
  verifierchain: Text(PEM_CHARS),
  verifierkey: Text(PEM_CHARS),
});
/** A wallet form. */
export type WalletForm = Static<typeof WalletForm>;

/** The path parameters of an event webhook's page and forms: the organisation and `{webhookID}`. */
export const OrgWebhook = Type.Object({ organizationID: Type.String(), webhookID: Type.String() });
/** A webhook page's path. */
export type OrgWebhook = Static<typeof OrgWebhook>;

/** The path parameters of a delivery's redelivery: the webhook's and `{deliveryID}`. */
export const OrgDelivery = Type.Object({ ...OrgWebhook.properties, deliveryID: Type.String() });
/** A redelivery form's path. */
export type OrgDelivery = Static<typeof OrgDelivery>;

const { payloadUrl, subscribedEvents, secret } = WebhookInput.properties;
/**
 * The event webhook form (docs/events.md "Webhooks"): the API's `WebhookInput` fields and limits in lower case;
 * `types` the ticked event types (none: the route's message), `disabled` a checkbox, and `secret` on creation only
 * (empty: Assent generates one). The URL rules are the service's, so that its message shows beside the field.
 */
export const WebhookForm = Type.Object({
  ...Csrf,
  payloadurl: payloadUrl,
  types: Type.Optional(subscribedEvents),
  disabled: On,
  secret: Type.Optional(secret),
});
/** An event webhook form. */
export type WebhookForm = Static<typeof WebhookForm>;

/** The query of a webhook's page: its deliveries page's `startid`, the `state` shown (empty: all) and `done`. */
export const WebhookQuery = Type.Object({
  startid: Type.Optional(Type.String({ maxLength: 100 })),
  state: Type.Optional(Type.String({ maxLength: 20 })),
  ...DoneQuery.properties,
});
/** A webhook page's query. */
export type WebhookQuery = Static<typeof WebhookQuery>;

/** The query of the Staff page: its page's `startid` and `done`. */
export const StaffQuery = Type.Object({
  startid: Type.Optional(Type.String({ maxLength: 100 })),
  ...DoneQuery.properties,
});

/** Ticked RoleIDs (`1`–`4`); none ticked sends none, which the staff service refuses with its message. */
const RoleTicks = Type.Optional(
  Type.Array(Type.Union([Type.Literal('1'), Type.Literal('2'), Type.Literal('3'), Type.Literal('4')]), { maxItems: 4 }),
);

/** The Staff page's invitation form: the address and the ticked roles (the API's `orgs.admins.invite`). */
export const StaffInviteForm = Type.Object({
  ...Csrf,
  email: Type.String({ minLength: 1, maxLength: MAX_EMAIL + 100 }),
  roles: RoleTicks,
});

/** The Staff page's roles form of one member: the ticked roles (the API's `orgs.admins.update`). */
export const StaffRolesForm = Type.Object({ ...Csrf, roles: RoleTicks });

/** The path parameters of a staff invitation's form: the organisation and `{invitationID}`. */
export const OrgStaffInvitation = Type.Object({ organizationID: Type.String(), invitationID: Type.String() });

/** The Staff page's policy form: the box "require a second factor" (sent as `on` when ticked). */
export const StaffPolicyForm = Type.Object({ ...Csrf, required: Type.Optional(Type.Literal('on')) });
