/** TypeBox schemas of the special consent request and its job (docs/api.md "Permissions and consents"). */
import { type Static, Type } from 'typebox';

/** The body of a special consent request (docs/api.md "Permissions and consents"): absent `attributeids` means every attribute of the purpose. */
export const ConsentRequestInput = Type.Object({
  attributeids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 500 })),
});
/** A special consent request body. */
export type ConsentRequestInput = Static<typeof ConsentRequestInput>;

/** The path of the special consent request: the organisation and the purpose. */
export const PurposeParams = Type.Object({ organizationID: Type.String(), purposeID: Type.String() });

/** The path of `…/jobs/{jobID}`: the organisation and the job. */
export const JobParams = Type.Object({ organizationID: Type.String(), jobID: Type.String() });

/** A background job as the API answers it: its state, counts (of individuals) and RFC 3339 times. */
export const JobBody = Type.Object({
  ID: Type.String(),
  Type: Type.String({ description: '`consent-request`' }),
  State: Type.String({ description: '`queued`, `running`, `completed` or `failed`' }),
  PurposeID: Type.String(),
  AttributeIDs: Type.Array(Type.String()),
  Notified: Type.Integer({ description: 'individuals notified (count)' }),
  Skipped: Type.Integer({ description: 'individuals no transport reaches (count)' }),
  SkippedReason: Type.String({
    description: 'why individuals were skipped (e.g. the organisation has no transport); "" when none was',
  }),
  Failed: Type.Integer({ description: 'individuals whose delivery failed after every retry (count)' }),
  ByTransport: Type.Object(
    Object.fromEntries(
      ['Webhook', 'Email', 'FCM', 'APNs'].map((name) => [
        name,
        Type.Object({ Notified: Type.Integer(), Failed: Type.Integer() }),
      ]),
    ),
    {
      description:
        '`Notified` and `Failed` split by the transport that carried each notification (counts; a device token ' +
        'reported gone counts as `Failed` of its push transport)',
    },
  ),
  Error: Type.String({ description: 'why the job failed; "" otherwise' }),
  CreatedAt: Type.String({ description: 'RFC 3339' }),
  StartedAt: Type.String({ description: 'RFC 3339, or ""' }),
  FinishedAt: Type.String({ description: 'RFC 3339, or ""' }),
});
/** A job body. */
export type JobBody = Static<typeof JobBody>;
